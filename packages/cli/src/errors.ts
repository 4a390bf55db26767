/** A command-line mistake or a local refusal: printed as one line, exit code given. */
import type { ExitCode } from "./exit-codes.js";

export class CliError extends Error {
  readonly exit: ExitCode;
  /** A machine-readable code for `--json` output. */
  readonly code: string;
  constructor(exit: ExitCode, code: string, message: string) {
    super(message);
    this.name = "CliError";
    this.exit = exit;
    this.code = code;
  }
}
