import assert from "node:assert/strict";
import { test } from "node:test";
import { checksNothingAsScript, isPytestStyle } from "../../src/core/domains/code/python-tests";

test("pytest-style: top-level test functions or Test classes, not a nested or differently named one", () => {
  assert.equal(isPytestStyle("from s import add\n\ndef test_add():\n    assert add(1, 2) == 3\n"), true);
  assert.equal(isPytestStyle("import pytest\n\n@pytest.mark.parametrize('x', [1])\nasync def test_x(x):\n    pass\n"), true);
  assert.equal(isPytestStyle("class TestAdd:\n    def test_one(self):\n        assert True\n"), true);
  assert.equal(isPytestStyle("class TestCase(unittest.TestCase):\n    pass\n"), true);
  assert.equal(isPytestStyle("def check():\n    def test_inner():\n        pass\n"), false);
  assert.equal(isPytestStyle("from s import add\nassert add(1, 2) == 3\n"), false);
  assert.equal(
    isPytestStyle("testing = True\ndef tester(): pass\n"),
    true,
    "def test… with any suffix is collected by pytest's default test*",
  );
});

test("checks nothing as a script: only definitions at the top level", () => {
  assert.equal(checksNothingAsScript('"""Doc."""\nimport os\nfrom s import add\nX = 3\n\ndef check():\n    assert add(1, 2) == 3\n'), true);
  assert.equal(checksNothingAsScript("from s import add\nassert add(1, 2) == 3\n"), false);
  assert.equal(checksNothingAsScript("def check():\n    assert False\n\ncheck()\n"), false);
  assert.equal(checksNothingAsScript('def main():\n    pass\n\nif __name__ == "__main__":\n    main()\n'), false);
  assert.equal(checksNothingAsScript("from s import add\nresult = add(1, 2)\n"), false, "an assignment from a call runs the code");
});
