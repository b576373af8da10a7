#!/usr/bin/env node
import { runCli } from './program.js';

runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env, exitCode: 0 }).then(
  (code) => {
    process.exitCode = code;
    // The engine is closed by now; should a stray handle keep the loop alive, do not hang the shell.
    setTimeout(() => process.exit(code), 2000).unref();
  },
  (error: unknown) => {
    process.stderr.write(`memory: ${String(error)}\n`);
    process.exitCode = 1;
  },
);
