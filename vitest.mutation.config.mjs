// The vitest configuration Stryker's runner loads: the suite's own, limited to the test files of
// the mutation group being run (MUTATION_TESTS, set by stryker.config.mjs).
import { relative } from 'node:path';
import { BaseSequencer } from 'vitest/node';
import base from './vitest.config.ts';

const tests = JSON.parse(process.env.MUTATION_TESTS ?? '[]');

// Stryker runs each mutant's covering tests one file after another and stops at the first failure.
// Vitest's own order runs the slowest files first; a group lists its fast, targeted files first,
// so most mutants are killed before the slow files start. Files the group does not list go last.
class GroupOrder extends BaseSequencer {
  async sort(files) {
    const rank = (file) => {
      const i = tests.indexOf(relative(this.ctx.config.root, file.moduleId));
      return i === -1 ? tests.length : i;
    };
    return [...files].sort((a, b) => rank(a) - rank(b));
  }
}

export default {
  ...base,
  test: {
    ...base.test,
    include: tests.length > 0 ? tests : base.test.include,
    ...(tests.length > 0 ? { sequence: { sequencer: GroupOrder } } : {}),
  },
};
