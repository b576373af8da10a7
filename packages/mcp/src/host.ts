// The SDK-free part of this package: what a command-line host (the `memory` CLI) shares with the
// MCP bin without loading the MCP SDK on every start.
export type { EmbedderChoice, OpenEngineOptions } from './open-engine.js';
export { EMBEDDER_CHOICES, isPostgresUrl, openEngineForHost, parseEmbedderChoice } from './open-engine.js';
export type { ScopeStats } from './scope-stats.js';
export { scopeStats } from './scope-stats.js';
export type { ServerArgs } from './server-args.js';
export { isLoopback, parseListen, parseServerArgs, SERVER_USAGE } from './server-args.js';
