import { packageBuild } from '../../tsup.base.js';

export default packageBuild(['src/index.ts', 'src/testing.ts', 'src/sql.ts', 'src/postgres.ts']);
