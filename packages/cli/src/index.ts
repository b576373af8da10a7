export type { ExitCode } from './exit-codes.js';
export { EXIT, EXIT_CODES_HELP } from './exit-codes.js';
export type { Output, Sink } from './output.js';
export { CLI_VERSION, createProgram, runCli } from './program.js';
export type { CliRuntime, CommandBody, CommandContext, GlobalOptions } from './runtime.js';
