import json, sys
out = sys.stdin.read().strip().splitlines()
last = out[-1] if out else ""
try:
    v = json.loads(last)
    v = v["score"] if isinstance(v, dict) else v
    print(max(0.0, min(1.0, float(v))))
except Exception:
    print(0)
