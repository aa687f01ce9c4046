// What a variant scored: its score per domain and split, and each task's result (a workspace task's diff
// and the test output its grader saw, a parse failure's raw output).

{
  const HA = window.HA;
  const { h } = HA;

  /** The variant's score per domain and split. */
  HA.scoreTable = (v) => {
    const rows = [];
    for (const [domain, splits] of Object.entries(v.scores))
      for (const [split, s] of Object.entries(splits))
        rows.push([
          domain,
          split,
          s.stage,
          HA.score(s.score),
          String(s.correct),
          String(s.wrong),
          String(s.parseFailures),
          String(s.errors),
          `${s.nTasks}/${s.nTotal}`,
        ]);
    return rows.length === 0
      ? h('p', {}, 'Not evaluated.')
      : HA.table(
          ['domain', 'split', 'stage', 'score', 'correct', 'wrong', 'parse failures', 'errors', 'tasks'],
          rows,
          { id: 'scores' },
        );
  };

  const TASK_COLUMNS = [
    'domain',
    'split',
    'task',
    'input',
    'prediction',
    'expected',
    'correct',
    'failure',
    'latency',
    'cost',
  ];

  /** A workspace task's stored prediction is the diff of its files (JSON text); null for other tasks. */
  const workspaceDiff = (prediction) => {
    if (prediction === null) return null;
    try {
      const value = JSON.parse(prediction);
      return typeof value === 'string' && (value === '' || value.startsWith('--- ')) ? value : null;
    } catch {
      return null;
    }
  };

  /** The prediction cell: a workspace task's diff and the test output its grader saw, each folded. */
  const predictionCell = (t) => {
    const diff = workspaceDiff(t.prediction);
    if (t.outcome === 'parse_failure' && t.rawOutput)
      return h(
        'div',
        { class: 'cell-text' },
        t.prediction === null ? '–' : t.prediction,
        h(
          'details',
          { class: 'raw-output', open: 'open' },
          h('summary', {}, 'raw output (no answer could be read from it)'),
          h('pre', {}, t.rawOutput),
        ),
      );
    if (diff === null && (t.log === null || t.log === undefined))
      return h('div', { class: 'cell-text' }, t.prediction === null ? '–' : t.prediction);
    return h(
      'div',
      { class: 'cell-text workspace-result' },
      diff === null
        ? h('p', { class: 'muted' }, 'no workspace collected')
        : h(
            'details',
            { class: 'workspace-diff' },
            h('summary', {}, diff === '' ? 'diff: no change' : 'diff'),
            h('pre', {}, diff),
          ),
      t.detail ? h('p', { class: 'muted' }, t.detail) : null,
      t.log === null || t.log === undefined
        ? null
        : h('details', { class: 'test-output' }, h('summary', {}, 'test output'), h('pre', {}, t.log)),
    );
  };

  const taskRow = (t) => [
    t.domain,
    t.split,
    t.taskId,
    h('div', { class: 'cell-text' }, HA.inputText(t.input)),
    predictionCell(t),
    h('div', { class: 'cell-text' }, t.split === 'test' ? 'hidden (test split)' : HA.text(t.expected)),
    t.outcome === 'correct' ? '✓' : '✗',
    t.outcome === 'parse_failure' ? 'parse failure' : t.outcome === 'error' ? `error: ${t.error || ''}` : '',
    t.latencyMs === null ? '–' : `${t.latencyMs} ms`,
    HA.usd(t.costUsd),
  ];

  /** The variant's task results, with a switch to show only the tasks it did not solve. */
  HA.tasksPanel = (tasks) => {
    const failedOnly = h('input', { type: 'checkbox', id: 'failed-only' });
    const tasksBox = h('div', {});
    const drawTasks = () => {
      const rows = tasks.filter((t) => !failedOnly.checked || t.outcome !== 'correct').map(taskRow);
      HA.fill(
        tasksBox,
        h('p', { class: 'muted' }, `${rows.length} task(s)`),
        h('div', { class: 'scroll' }, HA.table(TASK_COLUMNS, rows, { id: 'tasks' })),
      );
    };
    failedOnly.addEventListener('change', drawTasks);
    drawTasks();
    return HA.section('Tasks', h('label', {}, failedOnly, ' only tasks it did not solve'), tasksBox);
  };
}
