import { packageBuild } from '../../tsup.base.js';

// The extraction worker is its own entry: extraction starts it as dist/extract/extract-worker.js.
export default packageBuild(['src/index.ts', 'src/extract/extract-worker.ts']);
