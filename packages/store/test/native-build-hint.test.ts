import { describe, expect, it } from 'vitest';
import { nativeBuildHint } from '../src/native-build-hint.js';

// The end-to-end case (a real install without the native build) runs in scripts/pack-consume.mjs.
describe('nativeBuildHint', () => {
  it('says what to run when the bindings file is missing', () => {
    const error = new Error(
      'Could not locate the bindings file. Tried:\n → /app/node_modules/better-sqlite3/build/...',
    );
    const hint = nativeBuildHint(error);
    expect(hint).toContain('missing');
    expect(hint).toContain('npm rebuild better-sqlite3');
    expect(hint).toContain('pnpm rebuild better-sqlite3');
    expect(hint).toContain('allowBuilds');
  });

  it('recognizes a build for another Node.js version', () => {
    const error = Object.assign(
      new Error(
        "The module '/app/node_modules/better-sqlite3/build/Release/better_sqlite3.node' was compiled against a different Node.js version using NODE_MODULE_VERSION 127.",
      ),
      { code: 'ERR_DLOPEN_FAILED' },
    );
    expect(nativeBuildHint(error)).toContain('for another Node.js version');
  });

  it('leaves every other error alone', () => {
    expect(nativeBuildHint(new Error('unable to open database file'))).toBeUndefined();
    expect(
      nativeBuildHint(Object.assign(new Error('libfoo.so: cannot open'), { code: 'ERR_DLOPEN_FAILED' })),
    ).toBeUndefined();
    expect(nativeBuildHint('Could not locate the bindings file')).toBeUndefined();
    expect(nativeBuildHint(null)).toBeUndefined();
  });
});
