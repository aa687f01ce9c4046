// The page of all runs.

{
  const HA = window.HA;
  const { h, runPath, variantPath, stateBadge, simBadge } = HA;

  /** The state a page shows for a run: its health's (a run whose every generation failed is failed). */
  const shownState = (r) => (r.health ? r.health.state : r.state);

  /** One row of the runs table, without its checkbox cell. */
  const runCells = (r) => {
    const health = r.health;
    return [
      h('a', { href: HA.href(runPath(r.id)) }, r.id),
      h('span', { title: health ? health.why : null }, stateBadge(shownState(r)), ' ', simBadge(r)),
      r.model,
      r.domains.join(', '),
      r.generationsPlanned === null ? String(r.generations) : `${r.generations} / ${r.generationsPlanned}`,
      health && health.failed > 0
        ? h(
            'span',
            { class: 'fail-count', title: HA.failureText(health) },
            `${health.failed} of ${health.finished}`,
          )
        : '0',
      r.best === null
        ? '–'
        : h(
            'a',
            { href: HA.href(variantPath(r.id, r.best.id)) },
            `${HA.bestScoreText(r.best)} (variant ${r.best.id})`,
          ),
      HA.usd(r.costUsd),
      r.createdAt.replace('T', ' ').slice(0, 19),
    ];
  };

  const rowLevel = (r) => (r.health ? r.health.level : 'ok');

  /** The list of runs; served, it stays live: rows are patched in place, a new run gets a row. */
  // Over 80 lines: the list's rows, selection and live update share the runs shown and the rows drawn.
  HA.views.runs = async (el) => {
    const mark = HA.mode === 'serve' ? (await HA.get('/mark')).mark : null;
    const runs = await HA.get('/runs');
    const selected = new Set();
    const compare = h(
      'a',
      { class: 'button', id: 'compare-selected', href: '#', 'aria-disabled': 'true' },
      'Compare selected runs',
    );
    const update = () => {
      const ids = [...selected];
      compare.setAttribute('href', HA.href(`/compare?runs=${ids.map(encodeURIComponent).join(',')}`));
      compare.setAttribute('aria-disabled', ids.length < 2 ? 'true' : 'false');
    };
    const checkbox = (r) =>
      HA.mode === 'serve'
        ? h('input', {
            type: 'checkbox',
            'data-run': r.id,
            onchange: (e) => {
              if (e.target.checked) selected.add(r.id);
              else selected.delete(r.id);
              update();
            },
          })
        : '';
    const row = (r) =>
      h(
        'tr',
        { 'data-run-row': r.id, class: `level-${rowLevel(r)}` },
        h('td', {}, checkbox(r)),
        runCells(r).map((c) => h('td', {}, c)),
      );
    const table = HA.table(
      ['', 'run', 'state', 'model', 'domains', 'generations', 'failed', 'best', 'spend', 'started'],
      [],
      { id: 'runs' },
    );
    const body = table.querySelector('tbody');
    for (const r of runs) body.appendChild(row(r));
    HA.fill(
      el,
      h('h1', {}, 'Runs'),
      runs.length === 0
        ? h('p', { id: 'no-runs' }, 'No runs yet. Start one with hyperagents generate-loop.')
        : null,
      table,
      HA.mode === 'serve'
        ? h('p', {}, compare)
        : runs.length > 1
          ? h(
              'p',
              {},
              h(
                'a',
                { href: HA.href(`/compare?runs=${runs.map((r) => encodeURIComponent(r.id)).join(',')}`) },
                'Compare these runs',
              ),
            )
          : null,
    );
    /** Patches each row's cells but the checkbox; adds rows of new runs in the server's order. */
    const refresh = async () => {
      const now = (await HA.get('/mark')).mark;
      const latest = await HA.get('/runs');
      HA.holdScroll(() => patchRows(latest));
      const noRuns = el.querySelector('#no-runs');
      if (noRuns && latest.length > 0) noRuns.remove();
      return { mark: now, live: true };
    };
    const patchRows = (latest) => {
      const rows = new Map([...body.children].map((tr) => [tr.dataset.runRow, tr]));
      let before = null;
      for (const r of [...latest].reverse()) {
        let tr = rows.get(r.id);
        if (tr) {
          tr.className = `level-${rowLevel(r)}`;
          runCells(r).forEach((c, i) => {
            HA.patch(tr.children[i + 1], c);
          });
        } else {
          tr = row(r);
          body.insertBefore(tr, before);
        }
        before = tr;
      }
    };
    return { live: mark === null ? null : { markPath: '/mark', mark, refresh } };
  };
}
