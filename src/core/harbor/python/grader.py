import json, math, re, sys, unicodedata

SCALES = {"thousand": 1e3, "thousands": 1e3, "k": 1e3, "million": 1e6, "millions": 1e6, "mn": 1e6, "mm": 1e6, "m": 1e6,
          "mil": 1e6, "billion": 1e9, "billions": 1e9, "bn": 1e9, "b": 1e9, "trillion": 1e12, "trillions": 1e12, "tn": 1e12}
CURRENCY = {"$": "USD", "us$": "USD", "usd": "USD", "dollar": "USD", "dollars": "USD", "\u20ac": "EUR", "eur": "EUR", "euro": "EUR",
            "euros": "EUR", "\u00a3": "GBP", "gbp": "GBP", "pound": "GBP", "pounds": "GBP", "\u00a5": "JPY", "jpy": "JPY", "yen": "JPY",
            "cny": "CNY", "rmb": "CNY", "yuan": "CNY", "\u20b9": "INR", "inr": "INR", "rupee": "INR", "rupees": "INR", "chf": "CHF",
            "cad": "CAD", "c$": "CAD", "aud": "AUD", "a$": "AUD", "hkd": "HKD", "hk$": "HKD"}
# JavaScript's \s (Unicode spaces and line ends); \d and \b are ASCII there, as with re.ASCII here.
S = "[\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]"
JS_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
QUANTITY = re.compile(
    "(?P<open>\\()?" + S + "?(?P<neg>(?:negative|minus)" + S + "+)?(?P<minus>[-\u2212\u2013])?" + S + "?"
    "(?P<cur>\\$|US\\$|C\\$|A\\$|HK\\$|\u20ac|\u00a3|\u00a5|\u20b9|(?:USD|EUR|GBP|JPY|CNY|RMB|INR|CHF|CAD|AUD|HKD)" + S + "?)?" + S + "{0,3}"
    "(?P<open2>\\()?(?P<minus2>[-\u2212\u2013])?"
    "(?P<num>\\d{1,3}(?:,\\d{3})+(?:\\.\\d+)?|\\d+(?:\\.\\d+)?|\\.\\d+)(?:[eE](?P<exp>[-+]?\\d{1,2})\\b)?(?P<close>\\))?"
    "(?:" + S + "?(?P<pct>%|percent\\b|per cent\\b|pct\\b|percentage points?\\b)|(?P<sp>" + S + ")?(?P<scale>thousands?|millions?|billions?|trillions?|mn|mm|bn|tn|mil|[kmb])\\b)?"
    "(?:" + S + "?(?P<cur2>USD|EUR|GBP|JPY|CNY|RMB|INR|CHF|CAD|AUD|HKD|dollars?|euros?|pounds?|yen|yuan|rupees?)\\b)?(?P<close2>" + S + "?\\))?",
    re.I | re.A)
MAX_ROUNDING = 0.005
NEGLIGIBLE = 0.001
MAX_OTHER_FIGURES = 3
MAX_READ_CHARS = 20000
MAX_CITED_PAGES = 10


def js_trim(s):
    return s.strip(JS_SPACE)


def js_len(s):
    return len(s.encode("utf-16-le")) // 2


def js_num(x):
    """A number as JavaScript's String(x) writes it."""
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, int):
        x = float(x) if abs(x) >= 1e21 else x
        if isinstance(x, int):
            return str(x)
    if math.isnan(x) or math.isinf(x):
        return "null"
    if x == int(x) and abs(x) < 1e21:
        return str(int(x))
    r = repr(x)
    if "e" in r:
        mant, e = r.split("e")
        e = int(e)
        if -7 < e < 21:
            from decimal import Decimal
            r = format(Decimal(r), "f")
        else:
            r = mant + "e" + ("+" if e > 0 else "-") + str(abs(e))
    return r


def js_json(v):
    """JSON.stringify(v) for the values JSON can hold."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return js_num(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list):
        return "[" + ",".join(js_json(x) for x in v) + "]"
    return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + js_json(x) for k, x in v.items()) + "}"


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def show(v):
    s = v if isinstance(v, str) else js_json(v)
    return s if len(s) <= 120 else s[:117] + "\u2026"


def verdict(passed, reason):
    return {"score": 1 if passed else 0, "passed": passed, "reason": reason}


def count_digits(num):
    plain = num.replace(",", "")
    dot = plain.find(".")
    decimals = 0 if dot < 0 else len(plain) - dot - 1
    digits = re.sub("^0+", "", plain.replace(".", "", 1))
    significant = (len(re.sub("0+$", "", digits)) or 1) if dot < 0 else (len(digits) or 1)
    int_part = plain if dot < 0 else plain[:dot]
    fraction = re.sub("0+$", "", "" if dot < 0 else plain[dot + 1:])
    zeros = re.search("0+$", int_part)
    int_zeros = len(zeros.group(0)) if re.search("[1-9]", int_part) and zeros else 0
    last_digit = -len(fraction) if fraction else int_zeros
    return {"decimals": decimals, "significant": significant, "lastDigit": last_digit}


LABEL_BEFORE = re.compile(
    "(?:\\b(?:form|item|note|notes|exhibit|section|rule|article|part|schedule|class|series|tier|chapter|page|pages|p\\.|pp\\.|table|figure|model|version|level|phase|stage|no\\.)|#|[^" + JS_SPACE + "]&[^" + JS_SPACE + "]*)" + S + "*$",
    re.I | re.A)


def is_name(text, start, g):
    """A label's number ("Item 7", "S&P 500") or a company glued to a capital M/B/K ("3M's", "3M Company")."""
    bare = not (g["cur"] or g["cur2"] or g["pct"] or g["open"] or g["minus"] or g["neg"]) and not re.search("[.," + JS_SPACE + "]", g["num"] or "")
    if not bare:
        return False
    if not g["scale"] and LABEL_BEFORE.search(text[max(0, start - 24):start]):
        return True
    if g["scale"] and g["scale"] in ("M", "B", "K") and not g["sp"]:
        end = text.find(g["scale"], start + len(g["num"] or "")) + 1
        nxt = text[end:end + 3]
        return bool(re.match("['\u2019]s\\b", nxt, re.A)) or bool(re.match(S + "+[A-Z]", nxt, re.A)) or (
            len(nxt) >= 2 and nxt[0] == "-" and nxt[1].isalpha())
    return False


def find_quantities(text):
    out = []
    for m in QUANTITY.finditer(text):
        g = m.groupdict()
        m0 = m.group(0)
        num = g["num"] or ""
        start = m.start() + (len(m0) - len(m0.lstrip(JS_SPACE)))
        before = text[start - 1] if start >= 1 else ""
        end = m.end()
        after = text[end:end + 2]
        label = (before.isalpha() or before == "_") or (len(after) == 2 and after[0] == "-" and after[1].isalpha())
        if not (g["open"] or g["open2"] or g["minus"] or g["cur"] or g["neg"]) and label:
            continue
        if is_name(text, start, g):
            continue
        opened = bool(g["open"] or g["open2"])
        closed = bool(g["close"] or g["close2"])
        negative = bool(g["minus"] or g["minus2"] or g["neg"] or (opened and closed))
        exp = int(g["exp"]) if g["exp"] else 0
        try:
            magnitude = float(num.replace(",", "")) * 10.0 ** exp
        except OverflowError:
            continue
        if not math.isfinite(magnitude):
            continue
        mantissa = -magnitude if negative else magnitude
        scale_word = g["scale"].lower() if g["scale"] else None
        glued = scale_word is not None and len(scale_word) == 1 and not g["sp"] and not after.startswith("-")
        cur = g["cur2"] or g["cur"]
        scale = SCALES.get(scale_word, 1) if scale_word and (len(scale_word) > 1 or cur or glued) else 1
        kind = "percent" if g["pct"] else "money" if cur else "plain"
        currency = CURRENCY.get(js_trim(cur).lower()) if cur else None
        if g["close2"] and not opened:
            end -= len(g["close2"])
        if scale == 1 and scale_word:
            end -= len(m0) - re.search("(?:" + S + ")?[kmb]\\)?$", m0, re.I | re.A).start()
        d = count_digits(num)
        out.append({"value": mantissa * scale, "mantissa": mantissa, "scale": scale, "kind": kind, "currency": currency,
                    "decimals": max(0, d["decimals"] - exp), "significant": d["significant"], "lastDigit": d["lastDigit"] + exp,
                    "start": start, "end": end})
    return out


def looks_like_year(q):
    return q["kind"] == "plain" and q["scale"] == 1 and q["decimals"] == 0 and 1900 <= q["mantissa"] <= 2100


def parse_quantity(v):
    if is_num(v):
        if not math.isfinite(v):
            return None
        s = js_num(v)
        d = count_digits(s.replace("-", "", 1))
        return {"value": v, "mantissa": v, "scale": 1, "kind": "plain", "currency": None, "decimals": d["decimals"],
                "significant": max(d["significant"], 15), "lastDigit": d["lastDigit"]}
    if not isinstance(v, str):
        return None
    found = find_quantities(v)
    if not found:
        return None
    for q in found:
        if q["kind"] != "plain" or q["scale"] != 1:
            return q
    for q in found:
        if not (looks_like_year(q) and len(found) > 1):
            return q
    return found[0]


def half_unit(q, factor):
    return 0.5 * 10.0 ** q["lastDigit"] * abs(q["scale"] * factor)


def same_quantity(a, g, opts):
    candidates = [(a["value"], 1)]
    if a["scale"] == 1 and g["scale"] != 1:
        candidates.append((a["mantissa"] * g["scale"], g["scale"]))
    if opts.get("tableScales") and a["scale"] == 1:
        for s in (1e3, 1e6, 1e9):
            if s != g["scale"]:
                candidates.append((a["mantissa"] * s, s))
    gv = g["value"]
    rel = opts.get("rel_tol")
    rel = 1e-6 if rel is None else rel
    for value, factor in candidates:
        diff = abs(value - gv)
        tol = max(opts.get("abs_tol") or 0, rel * abs(gv), 1e-9 * max(1, abs(gv)))
        if diff <= tol:
            return True
        if opts.get("rounding") == "none":
            continue
        if rounding_of(a, g, diff, factor):
            return True
    return False


def rounding_of(a, g, diff, factor):
    gv = abs(g["value"])
    cap = MAX_ROUNDING * gv
    eps = 1e-9 * max(1, gv)
    gold_half = half_unit(g, 1)
    if diff <= (gold_half if gold_half < 0.01 * gv else min(gold_half, cap)) + eps:
        return True
    if a["significant"] >= 3 and diff <= min(half_unit(a, factor), cap) + eps:
        return True
    same_precision = abs(half_unit(a, factor) - gold_half) <= eps
    if same_precision and diff <= min(2 * gold_half, cap) + eps:
        return True
    return not same_precision and diff <= NEGLIGIBLE * gv + eps


def unit_mismatch(a, g, want):
    if g["value"] == 0 and want == "plain" and a["kind"] != "percent":
        return None
    if want == "percent":
        if a["kind"] == "money":
            return "is a money amount, a percentage was expected"
        if a["kind"] == "plain" and a["scale"] != 1:
            return "has a scale word, a percentage was expected"
        return None
    if a["kind"] == "percent" and want == "money":
        return "is a percentage, a money amount was expected"
    if a["kind"] == "percent" and (g["scale"] != 1 or a["scale"] != 1):
        return "is a percentage, the gold is a plain number"
    if want == "plain" and g["scale"] == 1 and a["kind"] == "money":
        return "is a money amount, the gold is a plain number (a ratio or count)"
    if a["currency"] and g["currency"] and a["currency"] != g["currency"]:
        return "is in %s, the gold is in %s" % (a["currency"], g["currency"])
    return None


def as_gold_unit(a, want):
    if want == "plain" and a["kind"] == "percent":
        return [dict(a, kind="plain", value=a["value"] / 100, mantissa=a["mantissa"] / 100, decimals=a["decimals"] + 2,
                     lastDigit=a["lastDigit"] - 2)]
    if want != "percent" or a["kind"] != "plain":
        return [a]
    if abs(a["value"]) > 1.5:
        return []
    return [dict(a, kind="percent", value=a["value"] * 100, mantissa=a["mantissa"] * 100, decimals=max(0, a["decimals"] - 2),
                 lastDigit=a["lastDigit"] + 2)]


JOINS_ALTERNATIVES = re.compile("^" + S + "*(?:and/or|or|to|through|and|[-\u2013\u2014/,;])" + S + "*$", re.I | re.A)


def alternative_to(text, a, g, want, opts):
    """The figure the graded one is offered beside as a range or an alternative ("X or Y", "X-Y"), or None."""
    found = [q for q in find_quantities(text) if not looks_like_year(q)]
    i = next((k for k, q in enumerate(found) if q["start"] == a["start"]), -1)
    if i < 0:
        return None
    for left, right in ((found[i - 1] if i > 0 else None, a), (a, found[i + 1] if i + 1 < len(found) else None)):
        if not left or not right:
            continue
        other = right if left is a else left
        if unit_mismatch(other, g, want) or any(same_quantity(x, g, opts) for x in as_gold_unit(other, want)):
            continue
        join = text[left["end"]:right["start"]] or ("-" if re.match("[-\u2013]", text[right["start"]:]) else "")
        if JOINS_ALTERNATIVES.match(join):
            return text[other["start"]:other["end"]]
    return None


def other_figures(text, g, want, opts):
    seen = set()
    for q in find_quantities(text):
        if looks_like_year(q) or unit_mismatch(q, g, want):
            continue
        if any(same_quantity(x, g, opts) for x in as_gold_unit(q, want)):
            continue
        seen.add(q["value"])
    return len(seen)


SENTENCE_CUT = re.compile("(?<=[.!?:])" + S + "+(?=[^a-z" + JS_SPACE + "])|\n" + S + "*")
CONCLUSION = re.compile(
    "\\b(?:therefore|thus|hence|so|consequently|in summary|in conclusion|to summari[sz]e|overall|in total|final answer|"
    "the answer (?:is|would be)|the result is|this gives|which gives|this means|we get|comes? (?:out )?to|rounded)\\b|^answer" + S + "*:",
    re.I | re.A)
NOT = "(?:does not|doesn't|do not|don't|did not|is not|isn't|are not|aren't)"
REFUSAL = [re.compile(p.replace(" ", S + "+").replace("\\s", S), re.I | re.A) for p in (
    "\\bas an ai\\b",
    "\\bI (?:do not|don't|cannot|can't|am unable to|am not able to) (?:have (?:real-time |direct )?access|access|browse|provide|determine|calculate|compute|find|answer|give)\\b",
    "\\b(?:unable|not able|impossible|not possible) to (?:determine|calculate|compute|provide|answer|find|say|give)\\b",
    "\\b(?:cannot|can't|could not|couldn't) be (?:determined|calculated|computed|answered|found)\\b",
    "\\b(?:not enough|insufficient|no sufficient|not sufficient) (?:information|data|detail|details)\\b",
    "\\b(?:does not|doesn't|do not|don't) (?:provide|contain|include|give|have) (?:enough|sufficient|the necessary|the required|the needed)\\b",
    "\\b(?:provided|given|retrieved|available) (?:evidence|context|excerpts?|passages?|snippets?|information) " + NOT + "\\b",
    "\\b(?:evidence|context|excerpts?|passages?|snippets?) (?:provided|given|retrieved) " + NOT + "\\b",
    "\\bnot (?:available|provided|given|included|mentioned) in the (?:provided |given |retrieved )?(?:context|evidence|excerpts?|passages?|snippets?)\\b",
    "\\b(?:please )?(?:refer|check) (?:to )?the company's\\b")]
RESULT_MARK = re.compile(
    "(?:=|\u2248|~|\\b(?:is|was|were|are|equals?|equal to|amounts? to|amounted to|totals?|totaled|totalled|stood at|comes? to|of|at)\\b|:)"
    + S + "*(?:approximately|about|around|roughly|an? |the |negative |minus |positive |\\(|\\$|-|\u2212)*$", re.I | re.A)


def sentences(text):
    """The reply cut at a sentence's end followed by a space (not a decimal point) and at line breaks: [(text, start, end)]."""
    out = []
    start = 0

    def push(end):
        raw = text[start:end]
        lead = len(raw) - len(raw.lstrip(JS_SPACE))
        body = js_trim(raw)
        if any(c.isalnum() for c in body):
            out.append((body, start + lead, start + lead + len(body)))
    for m in SENTENCE_CUT.finditer(text):
        push(m.start())
        start = m.end()
    push(len(text))
    return out


def refusal_in(text):
    for r in REFUSAL:
        m = r.search(text)
        if m:
            return m.group(0)
    return None


def answer_sentence(text, fits):
    cands = [s for s in sentences(text) if fits(s)]
    concl = [s for s in cands if CONCLUSION.search(s[0])]
    if concl:
        return concl[-1]
    worked = [s for s in cands if "=" in s[0] or "\u2248" in s[0]]
    if worked:
        return worked[-1]
    return cands[0] if cands else None


def working_end(sentence, text):
    i = max(text.rfind("=", 0, sentence[2]), text.rfind("\u2248", 0, sentence[2]))
    return i + 1 if i >= sentence[1] else sentence[1]


def result_figure(text, sentence, figures):
    inside = [f for f in figures if f["start"] >= sentence[1] and f["end"] <= sentence[2]]
    if not inside:
        return None
    working = working_end(sentence, text)
    if working > sentence[1]:
        after = next((f for f in inside if f["start"] >= working), None)
        if after:
            return after
    return next((f for f in inside if RESULT_MARK.search(text[sentence[1]:f["start"]])), inside[0])


def stated_figure(text, g, want):
    """The figure a reply states as its answer in the gold's unit, and its sentence: the last concluding sentence,
    else the last working one out, else the first with a fitting figure; in it the result."""
    found = find_quantities(text)
    fits = [q for q in found if not unit_mismatch(q, g, want) and not (looks_like_year(q) and len(found) > 1)]

    def in_span(s):
        return [q for q in fits if q["start"] >= s[1] and q["end"] <= s[2]]
    sentence = answer_sentence(text, lambda s: len(in_span(s)) > 0)
    if not sentence:
        return None
    marked = [q for q in in_span(sentence) if q["kind"] != "plain" or q["scale"] != 1]
    figure = result_figure(text, sentence, marked or in_span(sentence))
    return (figure, sentence) if figure else None


def compare_quantity(expect_kind):
    def cmp(actual, gold, opts):
        g = parse_quantity(gold)
        if not g:
            return verdict(False, "the gold value %s is not a number" % show(gold))
        text = actual[:MAX_READ_CHARS] if isinstance(actual, str) else None
        declined = refusal_in(text) if text is not None else None
        if declined:
            return verdict(False, "the answer declines or hedges (\"%s\"); a refusal is not an answer, whatever the gold" % declined)
        want = g["kind"] if expect_kind == "any" else expect_kind
        read = stated_figure(text, g, want) if text is not None else None
        a = read[0] if read else parse_quantity(actual)
        if not a:
            return verdict(False, "no number in the answer %s" % show(actual))
        bad = unit_mismatch(a, g, want)
        if bad:
            return verdict(False, "%s %s" % (show(actual), bad))
        match = next((x for x in as_gold_unit(a, want) if same_quantity(x, g, opts)), None)
        if not match:
            return verdict(False, "%s differs from %s" % (show(actual), show(gold)))
        if text is not None and read:
            if alternative_to(text, a, g, want, opts) is not None:
                return verdict(False, "%s gives a range or alternatives; an answer states one" % show(actual))
            sentence = read[1]
            end = working_end(sentence, text)
            start = end if a["start"] >= end else sentence[1]
            if other_figures(text[start:sentence[2]], g, want, opts) > MAX_OTHER_FIGURES:
                return verdict(False, "the answer's sentence states several different figures; an answer states one")
        return verdict(True, "%s matches %s" % (show(actual), show(gold)))
    return cmp


def as_text(v):
    return v if isinstance(v, str) else js_json(v)


def letters_digits(s):
    return "".join(c if unicodedata.category(c)[0] in "LN" else " " for c in s)


def normalize_loose(s):
    return re.sub(" +", " ", letters_digits(unicodedata.normalize("NFKD", s.lower()))).strip(" ")


def parse_number(v):
    if is_num(v):
        return v if math.isfinite(v) else None
    if not isinstance(v, str):
        return None
    s = js_trim(v)
    negative = False
    m = re.match(r"^\((.*)\)$", s, re.S)
    if m:
        negative = True
        s = m.group(1)
    s = re.sub("[$\u20ac\u00a3\u00a5%" + JS_SPACE + "]", "", s)
    s = re.sub(r",(?=\d{3}(\D|$))", "", s, flags=re.A)
    if not re.match(r"^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$", s, re.I | re.A):
        return None
    n = float(s)
    if not math.isfinite(n):
        return None
    return -n if negative else n


def deep_equal(a, b):
    if is_num(a) and is_num(b):
        return a == b
    if type(a) is not type(b) and not (is_num(a) and is_num(b)):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(deep_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        keys = set(a) | set(b)
        return all(k in a and k in b and deep_equal(a[k], b[k]) for k in keys)
    return a == b


def missing(actual):
    return {"score": 0, "passed": False, "reason": "field missing from the answer"} if actual is None else None


def exact(actual, expected, spec):
    if actual is None:
        return missing(actual)
    ok = js_trim(as_text(actual)) == js_trim(as_text(expected))
    return {"score": 1 if ok else 0, "passed": ok, "reason": "" if ok else "expected %s, got %s" % (show(expected), show(actual))}


def text(actual, expected, spec):
    if actual is None:
        return missing(actual)
    ok = normalize_loose(as_text(actual)) == normalize_loose(as_text(expected))
    return {"score": 1 if ok else 0, "passed": ok, "reason": "" if ok else "expected %s, got %s" % (show(expected), show(actual))}


def number(actual, expected, spec):
    if actual is None:
        return missing(actual)
    e = parse_number(expected)
    if e is None:
        raise ValueError("gold value %s is not a number" % show(expected))
    a = parse_number(actual)
    if a is None:
        return {"score": 0, "passed": False, "reason": "%s is not a number" % show(actual)}
    rel = spec.get("rel_tol")
    ok = abs(a - e) <= max(spec.get("abs_tol") or 0, (1e-6 if rel is None else rel) * abs(e))
    return {"score": 1 if ok else 0, "passed": ok, "reason": "" if ok else "expected %s, got %s" % (js_num(e), js_num(a))}


def json_cmp(actual, expected, spec):
    if actual is None:
        return missing(actual)
    a = actual
    if isinstance(actual, str):
        try:
            a = json.loads(actual)
        except ValueError:
            a = actual
    ok = deep_equal(a, expected)
    return {"score": 1 if ok else 0, "passed": ok, "reason": "" if ok else "expected %s, got %s" % (show(expected), show(actual))}


def adapt(fn):
    def cmp(actual, expected, spec):
        if actual is None:
            return {"score": 0, "passed": False, "reason": "field missing from the answer"}
        return fn(actual, expected, spec)
    return cmp


# Figures' text, for the citation check: as src/core/reward/comparators/text-norm.ts reads it.
ARTICLES = {"a", "an", "the"}


def normalize_words(s):
    s = unicodedata.normalize("NFKC", s).lower()
    s = re.sub("[\u2018\u2019]", "'", s)
    s = re.sub("[\u201c\u201d]", '"', s)
    s = re.sub(r"(\d),(\d{3})", r"\1\2", s, flags=re.A)
    s = re.sub(r"(?<!\d)[.](?!\d)", " ", s, flags=re.A)
    s = "".join(c if unicodedata.category(c)[0] in "LN" or c in ".%$" or c in JS_SPACE else " " for c in s)
    return " ".join(w for w in re.split("[" + JS_SPACE + "]+", s) if w and w not in ARTICLES)


def page_states(page, value):
    q = parse_quantity(value)
    if q:
        return any(same_quantity(p, q, {"tableScales": True}) or same_quantity(q, p, {}) for p in find_quantities(page))
    if not isinstance(value, str):
        return False
    needle = normalize_words(value)
    return len(needle) > 0 and needle in normalize_words(page)


def check_citations(value, citations, pages):
    cited = [c for c in (citations if isinstance(citations, list) else [])
             if isinstance(c, dict) and isinstance(c.get("document"), str) and is_num(c.get("page")) and float(c["page"]).is_integer()]
    if not cited:
        return {"passed": False, "reason": "no citation with a document and a page was given"}
    distinct = len(set((c["document"], int(c["page"])) for c in cited))
    if distinct > MAX_CITED_PAGES:
        return {"passed": False, "reason": "%d pages cited; a citation names the few pages the figure is on" % distinct}
    for c in cited:
        page = pages.get(c["document"], {}).get(str(int(c["page"])))
        if page is not None and page_states(page, value):
            return {"passed": True, "reason": "%s p.%d states %s" % (c["document"], int(c["page"]), show(value))}
    return {"passed": False, "reason": "no cited page states %s" % show(value)}


def exact_normalized(actual, expected, spec):
    """The exact verifier: equal after its normalize mode (none, whitespace, lower, text)."""
    if actual is None:
        return {"score": 0, "passed": False, "reason": "nothing was submitted"}
    mode = spec.get("normalize") or "whitespace"

    def norm(x):
        if mode == "none":
            return x
        if mode == "text":
            return normalize_loose(x)
        x = re.sub("[" + JS_SPACE + "]+", " ", js_trim(x))
        return x.lower() if mode == "lower" else x
    ok = norm(as_text(actual)) == norm(as_text(expected))
    return {"score": 1 if ok else 0, "passed": ok, "reason": "matches" if ok else "expected %s, got %s" % (show(expected), show(actual))}


def legal_text(actual, gold, spec):
    if not (isinstance(gold, str) or is_num(gold)):
        return verdict(False, "the gold value %s is not text" % show(gold))
    if not (isinstance(actual, str) or is_num(actual)):
        return verdict(False, "the answer %s is not text" % show(actual))
    a = normalize_words(actual if isinstance(actual, str) else js_num(actual))
    g = normalize_words(gold if isinstance(gold, str) else js_num(gold))
    return verdict(a == g, "matches" if a == g else "%s differs from %s" % (show(actual), show(gold)))


COMPARATORS = {
    "exact": exact, "exact-normalized": exact_normalized, "legal-text": adapt(legal_text), "text": text, "number": number, "json": json_cmp,
    "money": adapt(compare_quantity("money")), "percent": adapt(compare_quantity("percent")), "quantity": adapt(compare_quantity("any")),
}


def as_structured(v):
    if not isinstance(v, str):
        return v
    s = js_trim(v)
    if not (s.startswith("{") or s.startswith("[")):
        return v
    try:
        return json.loads(s)
    except ValueError:
        return v


def get_path(value, dotted):
    if not dotted:
        return value
    cur = as_structured(value)
    for key in dotted.split("."):
        if isinstance(cur, dict):
            cur = cur.get(key)
        elif isinstance(cur, list) and key.isdigit() and int(key) < len(cur):
            cur = cur[int(key)]
        else:
            return None
        if cur is None:
            return None
    return cur


def grade_field(field, spec, answer, pages):
    name = spec["comparator"]
    cmp = COMPARATORS.get(name)
    if cmp is None:
        return {"score": 0, "passed": False, "error": "the %s comparator runs only in rlenv" % name}
    actual = get_path(answer, field)
    try:
        r = cmp(actual, spec.get("expected"), spec)
    except Exception as e:
        return {"score": 0, "passed": False, "error": str(e)}
    if spec.get("cite") and r["passed"]:
        parent = get_path(answer, field.rsplit(".", 1)[0]) if "." in field else as_structured(answer)
        citations = get_path(parent, "citations") if isinstance(parent, dict) else None
        if citations is None:
            citations = get_path(answer, "citations")
        c = check_citations(actual, citations, pages)
        if not c["passed"]:
            c = check_citations(spec.get("expected"), citations, pages)
        if not c["passed"]:
            return {"score": 0, "passed": False, "reason": "the value matches but the citation check failed: " + c["reason"]}
    return dict(r, score=min(1, max(0, r["score"])))


def grade(spec, answer):
    answer = as_structured(answer)
    outcomes = []
    for field, f in spec["fields"].items():
        r = grade_field(field, f, answer, spec.get("pages", {}))
        outcomes.append(dict(r, field=field, weight=f.get("weight", 1)))
    total = sum(o["weight"] for o in outcomes)
    mean = 0 if total == 0 else sum(o["weight"] * o["score"] for o in outcomes) / total
    passed = len(outcomes) > 0 and all(o["passed"] for o in outcomes)
    return (1 if passed else 0) if spec.get("mode") == "all" else mean, outcomes


if __name__ == "__main__":
    spec = json.load(open(sys.argv[1], encoding="utf-8"))
    try:
        answer = json.load(open(sys.argv[2], encoding="utf-8"))
    except (OSError, ValueError) as e:
        sys.stderr.write("no answer read from %s: %s\n" % (sys.argv[2], e))
        print(0)
        sys.exit(0)
    score, outcomes = grade(spec, answer)
    for o in outcomes:
        sys.stderr.write(json.dumps(o) + "\n")
    print(score)
