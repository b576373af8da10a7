import { AsyncLocalStorage } from 'node:async_hooks';
import { type EmbeddingProvider, type LlmProvider, TransactionBoundaryError } from '@memory/core';

interface GuardContext {
  readonly writing: boolean;
}

/**
 * Tracks whether the current async context holds a write transaction, and wraps providers so that
 * calling one from inside a write transaction throws {@link TransactionBoundaryError}. One guard per
 * store: two engines in one process never see each other's transactions.
 */
export class TransactionGuard {
  readonly #storage = new AsyncLocalStorage<GuardContext>();

  /** True while the current async context is inside a write transaction. */
  inWriteTransaction(): boolean {
    return this.#storage.getStore()?.writing === true;
  }

  /** Runs `fn` marked as inside a write transaction. */
  runWriting<T>(fn: () => T): T {
    return this.#storage.run({ writing: true }, fn);
  }

  /** Throws when called inside a write transaction. */
  assertOutside(provider: string, operation: string): void {
    if (this.inWriteTransaction()) throw new TransactionBoundaryError(provider, operation);
  }

  /** The embedder, checked on every call. */
  embedder(inner: EmbeddingProvider): EmbeddingProvider {
    return {
      model: inner.model,
      dimensions: inner.dimensions,
      ...(inner.conflictThreshold === undefined ? {} : { conflictThreshold: inner.conflictThreshold }),
      embed: (texts, options) => {
        this.assertOutside('embedder', 'embed');
        return inner.embed(texts, options);
      },
    };
  }

  /** The LLM, checked on every call. */
  llm(inner: LlmProvider): LlmProvider {
    return {
      generate: (request, options) => {
        this.assertOutside('llm', 'generate');
        return inner.generate(request, options);
      },
    };
  }

  /** Any async function (a fetch, a host callback), checked on every call. */
  wrap<A extends unknown[], R>(
    provider: string,
    operation: string,
    fn: (...args: A) => Promise<R>,
  ): (...args: A) => Promise<R> {
    return (...args: A) => {
      this.assertOutside(provider, operation);
      return fn(...args);
    };
  }
}
