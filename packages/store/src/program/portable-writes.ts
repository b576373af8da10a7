import { isSerializationFailure } from '../postgres/errors.js';
import { type Program, portable, run } from './program.js';

/** What a step run under a savepoint gave: its value, or the error that rolled it back. */
export type SavepointOutcome<R> =
  | { readonly ok: true; readonly value: R }
  | { readonly ok: false; readonly error: unknown };

/**
 * Runs `body` under a savepoint of the caller's transaction: when it throws, only its own writes
 * are rolled back and the error is returned, so the transaction can go on (on PostgreSQL a failed
 * statement would otherwise abort the whole transaction). A serialization failure is thrown on:
 * the whole transaction must run again.
 */
export function* withSavepoint<R>(name: string, body: () => Program<R>): Program<SavepointOutcome<R>> {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new TypeError(`not a savepoint name: ${name}`);
  yield* run(portable(`SAVEPOINT ${name}`));
  try {
    const value = yield* body();
    yield* run(portable(`RELEASE SAVEPOINT ${name}`));
    return { ok: true, value };
  } catch (error) {
    if (isSerializationFailure(error)) throw error;
    yield* run(portable(`ROLLBACK TO SAVEPOINT ${name}`));
    yield* run(portable(`RELEASE SAVEPOINT ${name}`));
    return { ok: false, error };
  }
}
