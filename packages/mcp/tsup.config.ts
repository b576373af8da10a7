import { packageBuild } from '../../tsup.base.js';

// The bin is its own entry (`memory-mcp` runs dist/bin.js); `host` is the SDK-free door the CLI uses.
export default packageBuild(['src/index.ts', 'src/host.ts', 'src/bin.ts']);
