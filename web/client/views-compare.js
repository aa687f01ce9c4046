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

  /** The chart's lines per group: median with its 95% band, and each run's curve dashed. */
  const groupSeries = (groups, x) => {
    const series = [];
    const bands = [];
    const line = (label, values, color, width) => ({ label, values, color, width, showPoints: false });
    groups.forEach((g, i) => {
      const color = HA.palette(i);
      const at = (pick) => x.map((k) => (g.median[k] ? pick(g.median[k]) : null));
      series.push(
        line(
          `${g.label}: median`,
          at((m) => m.estimate),
          color,
          3,
        ),
      );
      series.push(
        line(
          `${g.label}: 95% high`,
          at((m) => m.high),
          `${color}55`,
          1,
        ),
      );
      series.push(
        line(
          `${g.label}: 95% low`,
          at((m) => m.low),
          `${color}55`,
          1,
        ),
      );
      bands.push([series.length - 1, series.length, `${color}22`]);
      for (const r of g.runs)
        series.push({
          ...line(
            `${r.id}`,
            x.map((k) => r.curve[Math.min(k, r.curve.length - 1)] ?? null),
            `${color}66`,
            1,
          ),
          dash: [4, 4],
        });
    });
    return { series, bands };
  };

  /** Each group's runs with their final best score and area, side by side. */
  const finalsView = (groups) =>
    h(
      'div',
      { class: 'side-by-side', id: 'finals' },
      groups.map((g, i) =>
        h(
          'div',
          { class: 'group' },
          h('h3', { style: `color:${HA.palette(i)}` }, g.label),
          HA.table(
            ['run', 'seed', 'final best', 'area'],
            g.runs.map((r) => [
              h('a', { href: HA.href(runPath(r.id)) }, r.id),
              String(r.seed),
              HA.score(r.final),
              HA.score(r.area),
            ]),
          ),
        ),
      ),
    );

  const rankTests = (tests) =>
    HA.section(
      'Rank test',
      h(
        'p',
        { class: 'muted' },
        'One-sided Mann–Whitney U: are the final scores of the first group higher than those of the other?',
      ),
      HA.table(
        ['group A', 'group B', 'U', 'p', 'method'],
        tests.map((t) => [
          t.a,
          t.b,
          t.test ? String(t.test.u) : '–',
          t.test ? t.test.p.toFixed(4) : '–',
          t.test ? t.test.method : 'too few runs',
        ]),
        { id: 'rank-tests' },
      ),
    );

  HA.views.compareRuns = async (el, params) => {
    const ids = (params.runs || '').split(',').filter(Boolean);
    const d = await HA.get(`/compare?runs=${ids.map(encodeURIComponent).join(',')}`);
    const { groups, tests, summary } = d.comparison;
    const length = Math.max(1, ...groups.map((g) => g.median.length));
    const x = Array.from({ length }, (_, g) => g);
    const chart = h('div', { class: 'chart', id: 'compare-chart' });
    HA.fill(
      el,
      h('p', { class: 'crumbs' }, h('a', { href: HA.href('/') }, 'runs'), ' / comparison'),
      h('h1', {}, `Comparison of ${d.runs.length} runs in ${groups.length} group(s)`),
      h(
        'p',
        { class: 'muted' },
        'Runs are grouped by condition (model, domains, parent selection, frozen MetaAgent). Bands: bootstrap 95% interval of the median.',
      ),
      HA.section(
        'Best score so far per generation',
        h(
          'p',
          { class: 'legend' },
          groups.map((g, i) =>
            h('span', { style: `color:${HA.palette(i)}` }, `━ ${g.label} (median of ${g.runs.length}) `),
          ),
          h('span', { class: 'muted' }, '· shaded: 95% interval · dashed: single runs'),
        ),
        chart,
      ),
      HA.section('Final scores', finalsView(groups)),
      summary ? experimentSection(summary) : null,
      rankTests(tests),
    );
    HA.chart(chart, {
      x,
      ...groupSeries(groups, x),
      legend: false,
      integerX: true,
      xLabel: 'generation',
      yLabel: 'best score so far',
      yRange: [0, 1],
    });
  };
}
