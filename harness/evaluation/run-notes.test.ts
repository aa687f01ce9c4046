import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONTROL_EVENT, openArchive } from '../../archive/index.ts';
import { createEvalsFolders } from './evals-folder.ts';

function archiveWithRoot() {
  const dir = mkdtempSync(path.join(tmpdir(), 'run-notes-'));
  const archive = openArchive(path.join(dir, 'archive.sqlite'));
  archive.createRun({
    id: 'r',
    harnessVersion: 'test',
    seed: 1,
    metaModel: 'sim',
    taskModel: 'sim',
    simulated: true,
    domains: [],
    config: {},
  });
  archive.insertVariant({ id: 0, parentId: null, step: 'selected' });
  archive.updateVariant(0, { step: 'done', status: 'evaluated', validParent: true, selectionScore: 0.5 });
  return { dir, archive };
}

describe("notes in the MetaAgent's evals folder", () => {
  it('writes none before a note is given, and every note given since, oldest first, in a kept folder too', () => {
    const { dir, archive } = archiveWithRoot();
    const folders = createEvalsFolders(archive, [], { reuse: true });
    const evals = path.join(dir, 'evals', 'variant-1');
    folders.write(evals, 0);
    expect(existsSync(path.join(evals, 'notes.md'))).toBe(false);
    folders.release(evals);

    archive.recordEvent(null, CONTROL_EVENT, { action: 'note', value: 'try smaller edits' });
    archive.recordEvent(null, CONTROL_EVENT, { action: 'pause' });
    archive.recordEvent(null, CONTROL_EVENT, { action: 'note', value: 'the parser is the weak part' });
    // The next MetaAgent's folder is the one kept from the last, updated: it gets the notes too.
    const next = path.join(dir, 'evals', 'variant-2');
    expect(folders.write(next, 0)).toEqual({ kind: 'reused' });
    const notes = readFileSync(path.join(next, 'notes.md'), 'utf8');
    expect(notes).toMatch(/^# Notes from the person running this run/);
    expect(notes.indexOf('try smaller edits')).toBeLessThan(notes.indexOf('the parser is the weak part'));
    expect(notes).not.toContain('pause');
    folders.dispose();
    archive.close();
  });
});
