import json, sys
a = sys.argv[1:]
r, total = {}, 0.0
for name, weight, score in zip(a[0::3], a[1::3], a[2::3]):
    try:
        v = float(score)
    except ValueError:
        print(f"{name}: score {score!r} is not a number: counted 0", file=sys.stderr)
        v = 0.0
    r[name] = v
    total += float(weight) * v
if len(r) > 1:
    r["reward"] = total
json.dump(r, open("/logs/verifier/reward.json", "w"))
