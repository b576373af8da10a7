import { describe, expect, it } from 'vitest';
import { commitsPerCheckpoint } from '../src/internal/wal-pacer.js';

describe('background checkpoint cadence', () => {
  it('asks every 32 commits while commits are small, sooner as they write more WAL frames', () => {
    // 8 commits of 50 frames: 400 frames, far below the 2,000 the worker may fall behind by.
    expect(commitsPerCheckpoint(400, 8)).toBe(32);
    // Commits of 100 frames: every 20.
    expect(commitsPerCheckpoint(800, 8)).toBe(20);
    // 8 commits of 1,500 frames (a bulk batch at a million memories): every commit.
    expect(commitsPerCheckpoint(12_000, 8)).toBe(1);
    // 500 frames a commit (an index build step starting new vec0 chunks): every 4.
    expect(commitsPerCheckpoint(4_000, 8)).toBe(4);
    // Nothing to read a pace from: the default.
    expect(commitsPerCheckpoint(0, 8)).toBe(32);
    expect(commitsPerCheckpoint(100, 0)).toBe(32);
  });
});
