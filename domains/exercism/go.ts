import type { CommandResult } from '../grade-context.ts';
import { type ExercismLanguage, reportFromCounts } from './language.ts';
import { toolchainStatus } from './toolchain.ts';

const PACKAGES = ['golang-go'] as const;

/**
 * Go exercises, graded by Debian's `go test` offline: module mode without a proxy, and the build cache,
 * module cache and GOPATH inside the working directory, so nothing is shared between tasks.
 */
const SCRIPT = [
  'export GOPATH="$PWD/.go/path" GOCACHE="$PWD/.go/cache" GOMODCACHE="$PWD/.go/path/pkg/mod"',
  'export GOFLAGS=-mod=mod GOPROXY=off GOSUMDB=off GO111MODULE=on GOTOOLCHAIN=local GOTELEMETRY=off',
  'exec go test -v -count=1 ./...',
].join('\n');

export const go: ExercismLanguage = {
  name: 'go',
  packages: PACKAGES,
  toolchain: () =>
    toolchainStatus(PACKAGES, [{ what: '/usr/bin/go', file: '/usr/bin/go', args: ['version'] }]),
  referenceTarget: (layout, example) => {
    const at = layout.example.indexOf(example);
    return layout.solution[at] ?? example.replace(/^\.meta\//, '');
  },
  isSupportFile: (rel) =>
    !rel.endsWith('_test.go') && (rel.endsWith('.go') || rel === 'go.mod' || rel === 'go.sum'),
  enableAllTests: (files) => files,
  testCommand: 'go test ./...',
  gradeCommand: () => ({ file: '/bin/sh', args: ['-c', SCRIPT], env: { CGO_ENABLED: '0' } }),
  isRunnerInput: (rel) => /(^|\/)(go\.(mod|sum|work|work\.sum)|[^/]*_test\.go|vendor\/.*)$/.test(rel),
  expectedTests: () => [],
  readReport: (result) => reportFromCounts(countGoTests(result)),
  claimsSuccess: (result) => /^(ok|PASS)\b/m.test(result.stdout),
  limits: { timeoutMs: 240_000, memoryMb: 4096 },
};

function countGoTests(result: CommandResult): { passed: number; total: number } | null {
  const lines = result.stdout.split('\n');
  const passed = lines.filter((l) => /^\s*--- PASS: /.test(l)).length;
  const failed = lines.filter((l) => /^\s*--- FAIL: /.test(l)).length;
  return passed + failed === 0 ? null : { passed, total: passed + failed };
}
