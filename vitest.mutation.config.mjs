// The vitest configuration Stryker's runner loads: the suite's own, limited to the test files of
// the mutation group being run (MUTATION_TESTS, set by stryker.config.mjs).
import base from './vitest.config.ts';

const tests = JSON.parse(process.env.MUTATION_TESTS ?? '[]');

export default { ...base, test: { ...base.test, include: tests.length > 0 ? tests : base.test.include } };
