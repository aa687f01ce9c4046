// A run's tasks × variants grid: one column per graded variant in lineage order (parent before child), one
// row per task; each cell passed, failed or not graded, with what changed against the parent marked. The
// data (`/api/runs/RUN/regressions`, archive/regression-grid.ts) is one character a cell.

{
  const HA = window.HA;
  const { h } = HA;

  /** Each cell character: its class, the text shown and what it means. */
  const CELLS = {
    '.': { kind: 'none', text: '', title: 'not graded' },
    p: { kind: 'pass', text: '✓', title: 'passed' },
    f: { kind: 'fail', text: '✗', title: 'failed' },
    R: { kind: 'regressed', text: '▼', title: 'regressed: fails, its parent passed' },
    B: {
      kind: 'rebroken',
      text: '▼!',
      title: 'rebroken: fails, its parent passed, and an ancestor had fixed it',
    },
    F: { kind: 'fixed', text: '▲', title: 'fixed: passes, its parent failed' },
  };
  const CHANGES = /[RBF]/;

  const percent = (n, of) => (of === 0 ? '–' : `${((100 * n) / of).toFixed(1)}%`);

  const summaryText = (s) =>
    `Regression rate: ${s.withRegression} of ${s.children} children (${percent(s.withRegression, s.children)}) broke at least one task; ` +
    `${s.regressed} regressed of ${s.parentPassed} tasks their parents passed (${percent(s.regressed, s.parentPassed)}); ` +
    `${s.fixed} fixed; ${s.rebroken} rebroken.`;

  const legend = () =>
    h(
      'p',
      { class: 'muted grid-legend' },
      Object.values(CELLS)
        .filter((c) => c.kind !== 'none')
        .map((c, i) => [i === 0 ? '' : ' · ', h('span', { class: `cell-${c.kind}` }, c.text), ` ${c.title}`]),
      h('br'),
      'A task passed when at least half of its attempts were correct; a change is decided on the attempts parent and child both have.',
    );

  /** The task's name in its row: its id, with domain and split when some id is in more than one of them. */
  const taskLabel = (t, full) => (full ? `${t.domain} ${t.split} ${t.taskId}` : t.taskId);

  /** The table, built with plain DOM calls: 225 tasks × 50 variants is 11,000 cells. */
  const gridTable = (runId, grid, onlyChanged) => {
    const full = new Set(grid.tasks.map((t) => t.taskId)).size < grid.tasks.length;
    const head = h(
      'tr',
      {},
      h('th', { class: 'grid-corner' }, 'task \\ variant'),
      grid.variants.map((v) =>
        h(
          'th',
          {
            'data-variant': v.id,
            title: v.parent === null ? `variant ${v.id}` : `variant ${v.id}, child of ${v.parent}`,
          },
          h('a', { href: HA.href(HA.variantPath(runId, v.id)) }, String(v.id)),
          h('div', { class: 'grid-parent' }, v.parent === null ? 'root' : `↑${v.parent}`),
        ),
      ),
    );
    const body = document.createElement('tbody');
    grid.tasks.forEach((t, i) => {
      const row = grid.cells[i] || '';
      if (onlyChanged && !CHANGES.test(row)) return;
      const tr = document.createElement('tr');
      tr.dataset.task = t.taskId;
      const th = document.createElement('th');
      th.textContent = taskLabel(t, full);
      th.title = `${t.domain}, ${t.split} split, task ${t.taskId}`;
      tr.appendChild(th);
      for (let j = 0; j < grid.variants.length; j++) {
        const cell = CELLS[row[j]] || CELLS['.'];
        const td = document.createElement('td');
        td.className = `cell-${cell.kind}`;
        td.textContent = cell.text;
        td.title = `${t.taskId}, variant ${grid.variants[j].id}: ${cell.title}`;
        tr.appendChild(td);
      }
      body.appendChild(tr);
    });
    return h('table', { class: 'task-grid', id: 'task-grid' }, h('thead', {}, head), body);
  };

  /**
   * The section and its `update(grid)`: the table scrolls inside its box with the variants and the tasks
   * kept in view (sticky), and a filter keeps only the tasks some variant changed.
   */
  HA.regressionSection = (runId) => {
    const state = { grid: null, onlyChanged: false };
    const summary = h('p', { id: 'regression-summary' });
    const box = h('div', { class: 'grid-box', id: 'task-grid-box' });
    const draw = () => {
      const { grid } = state;
      if (grid === null) return;
      HA.patch(
        summary,
        grid.variants.length < 2 ? 'No child has been graded yet.' : summaryText(grid.summary),
      );
      const scroll = [box.scrollLeft, box.scrollTop];
      HA.fill(
        box,
        grid.tasks.length === 0
          ? h('p', { class: 'muted' }, 'No task results yet.')
          : gridTable(runId, grid, state.onlyChanged),
      );
      [box.scrollLeft, box.scrollTop] = scroll;
    };
    const filter = h(
      'label',
      { class: 'filters' },
      h('input', {
        type: 'checkbox',
        id: 'only-changed',
        onchange: (e) => {
          state.onlyChanged = e.target.checked;
          draw();
        },
      }),
      ' only tasks that changed',
    );
    const load = async () => {
      try {
        state.grid = await HA.get(`${HA.runPath(runId)}/regressions`);
        draw();
      } catch (error) {
        HA.fill(box, h('p', { class: 'muted' }, String(error.message || error)));
      }
    };
    load();
    return { section: HA.section('Tasks × variants', summary, filter, legend(), box), update: load };
  };
}
