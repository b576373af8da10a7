import type { Checkpointer, CheckpointMode, CheckpointResult } from './checkpointer.js';

// Commits between two background checkpoint requests, at most. A checkpoint copies every page the
// commits since the last one wrote, and consecutive commits rewrite the same pages (index tails,
// postings, vector chunks): asking after every commit made the worker copy them again each time
// (about a sixth of a bulk write's CPU). A few commits' frames waiting in the WAL cost nothing: they
// are durable, and the next request (or closing the file) copies them. Each checkpoint also costs
// two fsyncs whatever it copies: at 8, single `remember` calls (~15 frames each) paid one every 8
// calls; at 32 they write ~500 frames between checkpoints and use ~7% less process CPU (bulk batches
// are paced by FRAMES_PER_CHECKPOINT below either way).
const COMMITS_PER_CHECKPOINT = 32;
// Commits between requests until the worker's replies have measured the pace: a store opened on a
// large file may start with commits of ~1,500 frames, and 32 of them would pass the writer's own
// threshold before the first request.
const FIRST_CADENCE = 4;
// WAL frames the background checkpoint may fall behind by. In a large file a commit writes more
// pages (at a million memories a bulk batch, or an index build step starting new vec0 chunks, wrote
// ~500–1,500), so 8 commits passed the writer's own threshold before the worker was asked, and the
// writer's checkpoint copied the rest inside a COMMIT on the event loop (54 ms of CPU for an 8-row
// build step). Requests therefore come sooner when the worker's replies show large commits.
const FRAMES_PER_CHECKPOINT = 2_000;
// Checkpoints one wait asks for before it lets the writer go on: each covers the commits other
// writers made during the one before (a background job's step), so a few more settle it.
const WAIT_ROUNDS = 8;
// Commits without a wait after one that could not settle the WAL (a reader's snapshot pins frames,
// or other writers kept committing): waiting again at once would only slow the writer.
const RETRY_AFTER_COMMITS = 16;

/**
 * Commits between background checkpoint requests: as many as write about
 * {@link FRAMES_PER_CHECKPOINT} WAL frames at the pace the worker's last two replies measured
 * (frames in the WAL grew by `frames` over `commits`), within 1 and {@link COMMITS_PER_CHECKPOINT}.
 */
export function commitsPerCheckpoint(frames: number, commits: number): number {
  if (commits <= 0 || frames <= 0) return COMMITS_PER_CHECKPOINT;
  return Math.max(1, Math.min(COMMITS_PER_CHECKPOINT, Math.floor((FRAMES_PER_CHECKPOINT * commits) / frames)));
}

/** Paces the background checkpoints of one writing connection and tells async writers when to wait. */
export interface WalPacer {
  /** Counts a committed write transaction; asks the worker for a checkpoint at the cadence. */
  committed(): void;
  /** A checkpoint on the worker (a passive one joins the writer's own request). */
  checkpoint(mode: CheckpointMode): Promise<CheckpointResult | undefined>;
  /** See `Store.walBacklog`. */
  backlog(): Promise<void> | undefined;
}

/**
 * A pacer for the writer whose checkpoints `worker` runs. SQLite restarts the WAL (writes it from
 * its start again) only at a write transaction that begins when every frame has been copied into
 * the database; a bulk load commits again before each background checkpoint ends, so the WAL never
 * restarts on its own. Past `restartFrames` the pacer therefore asks async writers to wait, between
 * two transactions, for a checkpoint that covers every commit: their next transaction restarts it.
 */
export function createWalPacer(worker: Checkpointer, restartFrames: number): WalPacer {
  let commits = 0;
  let sinceRequest = 0;
  let cadence = FIRST_CADENCE;
  // At the last reply: the commits it covers and the frames in the WAL.
  let lastReply: { commits: number; log: number } | undefined;
  // WAL frames a commit adds, as two replies in one WAL generation measured (0 until they have).
  let framesPerCommit = 0;
  // The writer's request the worker runs: a request meanwhile joins it (as the worker would) and
  // keeps the commit count of when it was made, which is what the reply can cover.
  let inflight: { promise: Promise<CheckpointResult | undefined>; asked: number } | undefined;
  let waiting: Promise<void> | undefined;
  let retryAt = 0;

  const request = (): Promise<CheckpointResult | undefined> => {
    if (inflight) return inflight.promise;
    const asked = commits;
    const promise = worker.request().then((result) => {
      inflight = undefined;
      if (!result || result.log < 0) return result;
      // A smaller WAL than last time was restarted in between: no pace to read from it.
      if (lastReply && result.log > lastReply.log && asked > lastReply.commits) {
        cadence = commitsPerCheckpoint(result.log - lastReply.log, asked - lastReply.commits);
        framesPerCommit = (result.log - lastReply.log) / (asked - lastReply.commits);
      }
      lastReply = { commits: asked, log: result.log };
      return result;
    });
    inflight = { promise, asked };
    return promise;
  };

  // The WAL's length now: what the last reply saw, plus the commits since at the measured pace (a
  // slow checkpoint's reply comes late, and the WAL grows meanwhile). Until two replies measured
  // the pace, the first one's average (frames left from before the open count too: it can only
  // overestimate, and a wait comes sooner).
  const estimate = (): number => {
    if (!lastReply) return 0;
    const pace = framesPerCommit || lastReply.log / Math.max(1, lastReply.commits);
    return lastReply.log + Math.max(0, commits - lastReply.commits) * pace;
  };

  const settle = async (): Promise<void> => {
    for (let round = 0; round < WAIT_ROUNDS; round++) {
      // A checkpoint that began before the last commit cannot cover it: let it end, then ask again.
      while (inflight && inflight.asked < commits) await inflight.promise;
      const asked = commits;
      const result = await request();
      if (!result || result.log < 0) return;
      if (commits !== asked) continue;
      if (result.checkpointed >= result.log) {
        // Everything copied and nothing committed since: the next write starts the WAL over.
        lastReply = { commits, log: 0 };
        return;
      }
      // Frames left with no commit since: a reader's snapshot pins them, and waiting cannot help.
      break;
    }
    retryAt = commits + RETRY_AFTER_COMMITS;
  };

  return {
    committed() {
      commits++;
      if (++sinceRequest < cadence) return;
      sinceRequest = 0;
      void request();
    },
    checkpoint: (mode) => (mode === 'passive' ? request() : worker.request(mode)),
    backlog() {
      if (waiting) return waiting;
      if (commits < retryAt || estimate() < restartFrames) return undefined;
      waiting = settle().finally(() => {
        waiting = undefined;
      });
      return waiting;
    },
  };
}
