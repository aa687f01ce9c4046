import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Archive, openArchive } from '../../archive/index.ts';
import { failVariant, seedVariantZero, startGeneration } from './transitions.ts';

let dir: string;
let archive: Archive;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'transitions-'));
  archive = openArchive(path.join(dir, 'archive.sqlite'));
});
afterEach(() => {
  archive.close();
  rmSync(dir, { recursive: true, force: true });
});

const zero = { commit: 'c0', codeHash: 'h0', reason: 'initial agent' };
const eventsOf = (id: number) =>
  archive
    .listEvents()
    .filter((e) => e.variantId === id)
    .map((e) => [e.type, e.data]);

describe('seedVariantZero', () => {
  it('stores the initial agent at full, with its commit and task-code hash', () => {
    seedVariantZero(archive, zero);
    expect(archive.getVariant(0)).toMatchObject({
      parentId: null,
      step: 'full',
      status: 'pending',
      commitSha: 'c0',
      taskCodeHash: 'h0',
      selectionReason: 'initial agent',
    });
  });

  it('replaces a variant 0 stored without its commit', () => {
    archive.insertVariant({ id: 0, parentId: null, step: 'full' });
    seedVariantZero(archive, zero);
    expect(archive.listVariants().map((v) => [v.id, v.commitSha])).toEqual([[0, 'c0']]);
  });

  it('never touches a variant 0 stored with its commit', () => {
    seedVariantZero(archive, zero);
    expect(() => seedVariantZero(archive, { ...zero, commit: 'other' })).toThrow(/already stored/);
    expect(archive.getVariant(0)?.commitSha).toBe('c0');
  });
});

describe('startGeneration', () => {
  beforeEach(() => seedVariantZero(archive, zero));

  it('stores the variant at selected with its parent commit, and logs why that parent', () => {
    startGeneration(archive, { id: 1, parent: 0, reason: 'best', parentCommit: 'c0' });
    expect(archive.getVariant(1)).toMatchObject({
      parentId: 0,
      step: 'selected',
      parentCommit: 'c0',
      selectionReason: 'best',
    });
    expect(eventsOf(1)).toEqual([['selected', { parent: 0, reason: 'best' }]]);
  });

  it('starts a generation once: a second start throws and writes nothing', () => {
    startGeneration(archive, { id: 1, parent: 0, reason: 'best', parentCommit: 'c0' });
    expect(() =>
      startGeneration(archive, { id: 1, parent: 0, reason: 'again', parentCommit: 'c0' }),
    ).toThrow();
    expect(archive.getVariant(1)?.selectionReason).toBe('best');
    expect(eventsOf(1)).toHaveLength(1);
  });
});

describe('failVariant', () => {
  beforeEach(() => {
    seedVariantZero(archive, zero);
    archive.updateVariant(0, { validParent: true });
    startGeneration(archive, { id: 1, parent: 0, reason: 'best', parentCommit: 'c0' });
  });

  it('ends the generation as failed from its step, recording the reason and the cause', () => {
    const variant = archive.getVariant(1)!;
    expect(failVariant({ archive }, variant, 'failed', 'model unreachable: refused', 'harness')).toBe(true);
    expect(archive.getVariant(1)).toMatchObject({
      step: 'failed',
      status: 'failed',
      validParent: false,
      failureReason: 'model unreachable: refused',
      failureCause: 'harness',
    });
    expect(archive.getVariant(1)?.finishedAt).not.toBeNull();
    expect(eventsOf(1).at(-1)).toEqual([
      'failed',
      { from: 'selected', status: 'failed', reason: 'model unreachable: refused', cause: 'harness' },
    ]);
    expect(archive.getVariant(0)?.validParent).toBe(true);
  });

  it('writes nothing when the variant has left the step it was read in', () => {
    const read = archive.getVariant(1)!;
    archive.transitionVariant(1, 'selected', 'editing');
    expect(failVariant({ archive }, read, 'failed', 'late', 'timeout')).toBe(false);
    expect(archive.getVariant(1)).toMatchObject({ step: 'editing', failureReason: null, failureCause: null });
  });

  it("disqualifies the parent when the parent's MetaAgent failed by itself", () => {
    failVariant({ archive }, archive.getVariant(1)!, 'failed', 'the MetaAgent exited with 1', 'agent');
    expect(archive.getVariant(0)?.validParent).toBe(false);
  });
});
