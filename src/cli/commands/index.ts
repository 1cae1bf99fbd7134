import type { Command } from "commander";
import { registerAudit } from "./audit";
import { registerCalibrate } from "./calibrate";
import { registerCompleteSource } from "../completion-sources";
import { registerCompletion } from "./completion";
import { registerExport } from "./export";
import { registerImage } from "./image";
import { registerImport } from "./import";
import { registerIndex } from "./index-documents";
import { registerNew } from "./new";
import { registerReport } from "./report";
import { registerRun } from "./run";
import { REMOTE_COMMANDS } from "./runner";
import { registerServe } from "./serve";
import { registerValidate } from "./validate";
import { registerView } from "./view";

/** Every subcommand, one file each. Add a line here for a new one. */
export const COMMANDS: Array<(program: Command) => void> = [
  registerValidate,
  registerNew,
  registerView,
  registerImage,
  ...REMOTE_COMMANDS,
  registerRun,
  registerExport,
  registerImport,
  registerAudit,
  registerCalibrate,
  registerIndex,
  registerReport,
  registerServe,
  registerCompletion,
  registerCompleteSource,
];
