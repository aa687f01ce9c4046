// The comparison of several runs.

(() => {
  const HA = window.HA;
  const { h, runPath } = HA;

  HA.views.compareRuns = async (el, params) => {
    const ids = (params.runs || '').split(',').filter(Boolean);
    const d = await HA.get(`/compare?runs=${ids.map(encodeURIComponent).join(',')}`);
    const { groups, tests } = d.comparison;
    const length = Math.max(1, ...groups.map((g) => g.median.length));
    const x = Array.from({ length }, (_, g) => g);
    const series = [];
    const bands = [];
    groups.forEach((g, i) => {
      const color = HA.palette(i);
      const at = (pick) => x.map((k) => (g.median[k] ? pick(g.median[k]) : null));
      series.push({
        label: `${g.label}: median`,
        values: at((m) => m.estimate),
        color,
        width: 3,
        showPoints: false,
      });
      series.push({
        label: `${g.label}: 95% high`,
        values: at((m) => m.high),
        color: `${color}55`,
        width: 1,
        showPoints: false,
      });
      series.push({
        label: `${g.label}: 95% low`,
        values: at((m) => m.low),
        color: `${color}55`,
        width: 1,
        showPoints: false,
      });
      bands.push([series.length - 1, series.length, `${color}22`]);
      for (const r of g.runs)
        series.push({
          label: `${r.id}`,
          values: x.map((k) => r.curve[Math.min(k, r.curve.length - 1)] ?? null),
          color: `${color}66`,
          width: 1,
          dash: [4, 4],
          showPoints: false,
        });
    });
    const chart = h('div', { class: 'chart', id: 'compare-chart' });
    const finals = h(
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
    const testRows = tests.map((t) => [
      t.a,
      t.b,
      t.test ? String(t.test.u) : '–',
      t.test ? t.test.p.toFixed(4) : '–',
      t.test ? t.test.method : 'too few runs',
    ]);
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
      HA.section('Final scores', finals),
      HA.section(
        'Rank test',
        h(
          'p',
          { class: 'muted' },
          'One-sided Mann–Whitney U: are the final scores of the first group higher than those of the other?',
        ),
        HA.table(['group A', 'group B', 'U', 'p', 'method'], testRows, { id: 'rank-tests' }),
      ),
    );
    HA.chart(chart, {
      x,
      series,
      bands,
      legend: false,
      integerX: true,
      xLabel: 'generation',
      yLabel: 'best score so far',
      yRange: [0, 1],
    });
  };
})();
