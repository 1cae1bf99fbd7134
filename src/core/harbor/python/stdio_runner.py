import json, subprocess, sys
def norm(t):
    lines = [" ".join(l.split()) for l in t.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    while lines and lines[-1] == "":
        lines.pop()
    return "\n".join(lines)
spec = json.load(open(sys.argv[1]))
passed = 0
for i, c in enumerate(spec["cases"]):
    try:
        r = subprocess.run(["bash", "-c", spec["program"]], input=c.get("stdin", ""), capture_output=True, text=True, timeout=c.get("timeout", 10))
        ok = r.returncode == 0 and norm(r.stdout) == norm(c["stdout"])
    except subprocess.TimeoutExpired:
        ok = False
    print(f"case {i}: {'passed' if ok else 'FAILED'}")
    passed += ok
n = len(spec["cases"])
score = passed / n if spec["mode"] == "fraction" else float(passed == n)
print(score)
