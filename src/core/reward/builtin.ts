import { harborVerifier } from "../harbor/verifier";
import { registerVerifier } from "./registry";
import { exactVerifier } from "./verifiers/exact";
import { fieldsVerifier } from "./verifiers/fields";
import { judgeVerifier } from "./verifiers/judge";
import { numericVerifier } from "./verifiers/numeric";
import { scriptVerifier } from "./verifiers/script";
import { testsVerifier } from "./verifiers/tests";

/** The verifiers every domain gets; importing this module registers them. */
for (const v of [testsVerifier, exactVerifier, numericVerifier, fieldsVerifier, scriptVerifier, judgeVerifier, harborVerifier])
  registerVerifier(v);
