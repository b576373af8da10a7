import { packageBuild } from '../../tsup.base.js';

// The bin is its own entry: `memory` runs dist/bin.js.
export default packageBuild(['src/index.ts', 'src/bin.ts']);
