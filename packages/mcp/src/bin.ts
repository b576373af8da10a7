#!/usr/bin/env node
import { isMemoryError } from '@memory/engine';
import { MCP_SERVER_VERSION } from './memory-mcp-server.js';
import { runMcpServer } from './run-server.js';
import { parseServerArgs, SERVER_USAGE } from './server-args.js';

// stdout belongs to the MCP protocol on stdio: everything for people goes to stderr.
async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stderr.write(`${SERVER_USAGE}\n`);
    return 0;
  }
  if (argv.includes('--version')) {
    process.stdout.write(`${MCP_SERVER_VERSION}\n`);
    return 0;
  }
  const args = parseServerArgs(argv);
  const running = await runMcpServer(args);
  const where = running.url ?? 'stdio';
  const whose = args.requireToken ? "each token's agent" : `agent ${args.agentId}`;
  process.stderr.write(`memory-mcp: serving ${whose} from ${args.db} over ${where}\n`);
  const stop = (): void => {
    void running.stop().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  await running.closed;
  await running.stop();
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    const usage = isMemoryError(error, 'INVALID_INPUT') || (error instanceof TypeError && 'code' in error);
    const message = isMemoryError(error) ? `${error.code}: ${error.message}` : String(error);
    process.stderr.write(`memory-mcp: ${message}\n${usage ? `\n${SERVER_USAGE}\n` : ''}`);
    process.exit(usage ? 2 : 1);
  },
);
