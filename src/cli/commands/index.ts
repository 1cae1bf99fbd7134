import type { Command } from "commander";
import { registerNew } from "./new";
import { registerValidate } from "./validate";

/** Every subcommand, one file each. Add a line here for a new one. */
export const COMMANDS: Array<(program: Command) => void> = [registerValidate, registerNew];
