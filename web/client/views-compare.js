// The comparison of several runs.

{
  const HA = window.HA;
  const { h, runPath } = HA;

  const med = (xs) => {
    const v = xs.filter((x) => x !== null).sort((a, b) => a - b);
    if (v.length === 0) return null;
    const m = v.length >> 1;
    return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
  };
  const p = (x) => (x === null ? '–' : x < 0.0001 ? '<0.0001' : x.toFixed(4));
  const delta = (x) => (x === null ? '–' : `${x >= 0 ? '+' : ''}${x.toFixed(3)}`);

  // The figures hyperagents experiment prints for the same runs, one group per configuration.
  const experimentSection = (summary) =>
    HA.section(
      'Configurations compared (as hyperagents experiment reports them)',
      HA.table(
        [
          'configuration',
          'runs',
          'median best',
          '95% CI',
          'AUC median',
          'tasks median',
          'cost',
          'best per run',
        ],
        summary.configs.map((c) => [
          c.name,
          String(c.runs.length),
          HA.score(c.medianBest),
          c.ci95 ? `[${HA.score(c.ci95[0])}, ${HA.score(c.ci95[1])}]` : '–',
          HA.score(c.aucMedian),
          String(Math.round(med(c.tasksEvaluated) ?? 0)),
          `$${c.costUsd.reduce((s, x) => s + x, 0).toFixed(4)}`,
          c.best.map(HA.score).join(' '),
        ]),
        { id: 'experiment-configs' },
      ),
      HA.table(
        [
          'comparison',
          'Δ median best',
          'p',
          'Δ AUC median',
          'p (AUC)',
          'Mann-Whitney p (best / AUC)',
          'test',
        ],
        summary.comparisons.map((t) => [
          `${t.a} > ${t.b}`,
          delta(t.deltaMedianBest),
          p(t.pValue),
          delta(t.deltaAucMedian),
          p(t.pValueAuc),
          `${p(t.pValueMannWhitney)} / ${p(t.pValueAucMannWhitney)}`,
          t.test,
        ]),
        { id: 'experiment-tests' },
      ),
    );

  // Group A and B keep their colours whatever order the runs were ticked in.
  const COLOR = { A: HA.palette(0), B: HA.palette(1) };
  const DIRECTIONS = [
    ['two-sided', 'A and B differ, either way (two-sided)'],
    ['a-better', 'A better than B (one-sided)'],
    ['b-better', 'B better than A (one-sided)'],
  ];
  const SMALL_GROUP = 5;
  const list = (s) => (s || '').split(',').filter(Boolean);
  const ids = (xs) => xs.map(encodeURIComponent).join(',');

  /** The comparison's address: the runs, and the view's choices when they were made. */
  const comparePath = (runs, choice) => {
    let q = `runs=${ids(runs)}`;
    if (choice.a !== undefined) q += `&a=${ids(choice.a)}&b=${ids(choice.b)}`;
    if (choice.short) q += `&short=${choice.short}`;
    if (choice.test) q += `&test=${choice.test}`;
    return `/compare?${q}`;
  };
  const choiceOf = (params) => ({
    ...(params.a !== undefined || params.b !== undefined ? { a: list(params.a), b: list(params.b) } : {}),
    short: params.short,
    test: params.test,
  });

  /** The chart's lines per group: median with its 95% band, and each counted run's curve dashed. */
  const groupSeries = (c, x) => {
    const series = [];
    const bands = [];
    const line = (label, values, color, width) => ({ label, values, color, width, showPoints: false });
    for (const g of c.groups) {
      const color = COLOR[g.name];
      const at = (pick) => x.map((k) => (g.median[k] ? pick(g.median[k]) : null));
      series.push(
        line(
          `${g.name}: median`,
          at((m) => m.estimate),
          color,
          3,
        ),
      );
      series.push(
        line(
          `${g.name}: 95% high`,
          at((m) => m.high),
          `${color}55`,
          1,
        ),
      );
      series.push(
        line(
          `${g.name}: 95% low`,
          at((m) => m.low),
          `${color}55`,
          1,
        ),
      );
      bands.push([series.length - 1, series.length, `${color}22`]);
      for (const r of c.runs.filter((r) => r.group === g.name && r.included))
        series.push({
          ...line(
            r.id,
            x.map((k) => r.curve[Math.min(k, r.curve.length - 1)] ?? null),
            `${color}66`,
            1,
          ),
          dash: [4, 4],
        });
    }
    return { series, bands };
  };

  /** What the chart shows at generation `k`: each group's median and interval, and its runs' values. */
  const hoverText = (c, k) => {
    if (k === null) return 'Point at the chart to read the values at a generation.';
    const parts = c.groups.map((g) => {
      const m = g.median[k];
      const runs = c.runs
        .filter((r) => r.group === g.name && r.included)
        .map((r) => `${r.id} ${HA.score(r.curve[Math.min(k, r.curve.length - 1)] ?? null)}`);
      const median = m
        ? `median ${HA.score(m.estimate)} [${HA.score(m.low)}, ${HA.score(m.high)}]`
        : 'no runs';
      return `${g.name}: ${median}${runs.length ? ` (${runs.join(', ')})` : ''}`;
    });
    return `generation ${k} · ${parts.join(' · ')}`;
  };

  /** The groups' runs, each with its group control, why it may be left out, and its figures. */
  const runsTable = (c, go) =>
    HA.table(
      ['group', 'run', 'configuration', 'seed', 'generations', 'counted', 'final best', 'area'],
      c.runs.map((r) => {
        const select = h(
          'select',
          {
            'data-group-run': r.id,
            disabled: off(),
            'aria-label': `group of ${r.id}`,
            onchange: (e) => go(assign(c, [r.id], e.target.value)),
          },
          ['A', 'B', ''].map((g) =>
            h('option', { value: g, selected: (r.group || '') === g ? 'selected' : null }, g || '–'),
          ),
        );
        return [
          select,
          h('a', { href: HA.href(runPath(r.id)), style: r.group ? `color:${COLOR[r.group]}` : null }, r.id),
          r.condition,
          String(r.seed),
          String(r.generations),
          h(
            'span',
            { class: r.included ? 'counted' : 'left-out', 'data-run-flag': r.id },
            r.group === null ? 'in no group' : r.included ? 'yes' : 'left out',
            r.flag ? ` · ${r.flag}` : '',
          ),
          HA.score(r.final),
          HA.score(r.area),
        ];
      }),
      { id: 'compare-runs' },
    );

  /** The groups with `moved` put in `group` ('A', 'B', or '' for none). */
  const assign = (c, moved, group) => {
    const a = c.choice.a.filter((id) => !moved.includes(id));
    const b = c.choice.b.filter((id) => !moved.includes(id));
    if (group === 'A') a.push(...moved);
    if (group === 'B') b.push(...moved);
    return { a, b };
  };

  // A report holds the comparison as it was built: its controls are shown, but off.
  const off = () => (HA.mode === 'report' ? 'disabled' : null);

  /** The controls: a filter that fills a group, the test's direction, and whether short runs count. */
  const controls = (c, go) => {
    const filter = h('input', {
      id: 'group-filter',
      type: 'search',
      placeholder: 'run name or configuration contains…',
      'aria-label': 'runs whose name or configuration contains',
      disabled: off(),
    });
    const matching = () => {
      const text = filter.value.trim().toLowerCase();
      return c.runs
        .filter((r) => text !== '' && `${r.id} ${r.condition}`.toLowerCase().includes(text))
        .map((r) => r.id);
    };
    const put = (group) =>
      h(
        'button',
        {
          id: `filter-to-${group.toLowerCase()}`,
          disabled: off(),
          onclick: () => go(assign(c, matching(), group)),
        },
        `Put matches in ${group}`,
      );
    const flagged = c.runs.filter((r) => r.group !== null && r.flag !== null).length;
    return h(
      'div',
      { class: 'compare-controls' },
      HA.mode === 'report'
        ? h(
            'p',
            { class: 'muted' },
            'A report keeps the groups it was made with: open the runs with hyperagents serve to change them.',
          )
        : null,
      h('p', {}, filter, ' ', put('A'), ' ', put('B')),
      h(
        'p',
        {},
        h(
          'label',
          {},
          'Test: ',
          h(
            'select',
            { id: 'test-direction', disabled: off(), onchange: (e) => go({ test: e.target.value }) },
            DIRECTIONS.map(([value, text]) =>
              h('option', { value, selected: c.choice.direction === value ? 'selected' : null }, text),
            ),
          ),
        ),
        ' ',
        h(
          'label',
          {},
          h('input', {
            type: 'checkbox',
            id: 'include-short',
            disabled: off(),
            checked: c.choice.includeShort ? 'checked' : null,
            onchange: (e) => go({ short: e.target.checked ? 'include' : null }),
          }),
          ` Include stopped and short runs (${flagged} flagged)`,
        ),
      ),
    );
  };

  /** What a test between groups this small can and cannot tell; null when both have enough runs. */
  const smallGroups = (c) => {
    const [na, nb] = c.groups.map((g) => g.runs.length);
    if (na === 0 || nb === 0 || Math.min(na, nb) >= SMALL_GROUP) return null;
    return h(
      'p',
      { class: 'health-warning', id: 'small-groups' },
      `Groups of ${na} and ${nb} runs are too small to separate: the smallest p this test can give is ${p(c.smallestP)} ` +
        '(every run of one group above every run of the other). It can flag a large, consistent difference; ' +
        'it cannot tell a small or moderate one from noise, and a high p does not show the configurations are alike. ' +
        `Use ${SMALL_GROUP} or more runs per group.`,
    );
  };

  const rankTest = (c) => {
    const [A, B] = c.groups;
    const said = DIRECTIONS.find(([v]) => v === c.choice.direction)[1];
    return HA.section(
      'Rank test',
      h('p', { class: 'muted' }, `Mann–Whitney U on the final best scores of the counted runs: ${said}.`),
      smallGroups(c),
      h(
        'p',
        { id: 'rank-test' },
        c.test
          ? `A (${A.runs.length} runs) vs B (${B.runs.length} runs): U = ${c.test.u}, p = ${p(c.test.p)} (${c.test.method})`
          : 'Put at least one counted run in each group to test them.',
      ),
    );
  };

  HA.views.compareRuns = async (el, params) => {
    const runs = list(params.runs);
    const d = await HA.get(comparePath(runs, choiceOf(params)));
    const c = d.comparison;
    // A change of groups, direction or toggle is a new address: a link reproduces the view, back undoes it.
    const go = (change) => {
      const next = { a: c.choice.a, b: c.choice.b, short: params.short, test: params.test, ...change };
      HA.navigate(comparePath(runs, next));
    };
    const length = Math.max(1, ...c.groups.map((g) => g.median.length));
    const x = Array.from({ length }, (_, g) => g);
    const chart = h('div', { class: 'chart', id: 'compare-chart' });
    const hover = h('p', { class: 'muted', id: 'compare-hover' }, hoverText(c, null));
    HA.fill(
      el,
      h('p', { class: 'crumbs' }, h('a', { href: HA.href('/') }, 'runs'), ' / comparison'),
      h('h1', {}, `Comparison of ${d.runs.length} runs: group A against group B`),
      h(
        'p',
        { class: 'legend', id: 'compare-groups' },
        c.groups.map((g) =>
          h(
            'span',
            { style: `color:${COLOR[g.name]}` },
            `━ ${g.name}: ${g.label} (${g.runs.length} counted) `,
          ),
        ),
      ),
      h(
        'p',
        { class: 'muted' },
        c.choice.byConfiguration
          ? 'Groups by configuration (model, domains, parent selection, frozen MetaAgent); change them below. '
          : '',
        'Stopped runs and runs with fewer generations than the longest of their group are left out unless included below.',
      ),
      HA.section('Groups', controls(c, go), runsTable(c, go)),
      HA.section(
        'Best score so far per generation',
        h(
          'p',
          { class: 'muted' },
          'Thick: median of the group · shaded: bootstrap 95% interval of the median · dashed: single runs',
        ),
        chart,
        hover,
      ),
      rankTest(c),
      c.summary ? experimentSection(c.summary) : null,
    );
    HA.chart(chart, {
      x,
      ...groupSeries(c, x),
      legend: false,
      integerX: true,
      xLabel: 'generation',
      yLabel: 'best score so far',
      yRange: [0, 1],
      onCursor: (k) => {
        hover.textContent = hoverText(c, k);
      },
    });
  };
}
