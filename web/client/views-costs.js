// What a run spent, on its page: spend per generation stacked by role or by model, with the totals, and the
// score of each variant against the run's spend up to it. Drawn from the run's spend points (one a
// generation, summed by the server), so a live update patches them like the other charts.

{
  const HA = window.HA;
  const { h, variantPath } = HA;

  const SPLITS = { role: 'byRole', model: 'byModel' };
  /** How the stacked chart splits the spend: by role (the default) or by model; in the address as ?spend=. */
  const splitBy = () => (HA.queryParams().get('spend') === 'model' ? 'model' : 'role');

  /**
   * The spend of each generation that made calls, split by role or model: the generations, the keys (roles
   * or models, sorted), each key's spend per generation, and each key's total over the whole run (calls of
   * no variant included).
   */
  HA.spendLayers = (spend, by) => {
    const field = SPLITS[by];
    const points = spend.filter((p) => p.generation !== null);
    const keys = [...new Set(spend.flatMap((p) => Object.keys(p[field])))].sort();
    const layers = keys.map((k) => points.map((p) => p[field][k] || 0));
    const totals = keys.map((k) => spend.reduce((sum, p) => sum + (p[field][k] || 0), 0));
    return { x: points.map((p) => p.generation), keys, layers, totals };
  };

  /** Bars stacked bottom-up in key order: the tallest is drawn first, each lower layer over it. */
  const stackedSeries = ({ keys }, layers) => {
    const stacks = [];
    let running = null;
    for (const layer of layers.now) {
      running = running === null ? [...layer] : running.map((y, i) => y + layer[i]);
      stacks.push(running);
    }
    return keys
      .map((key, k) => ({
        label: key,
        values: stacks[k],
        color: HA.palette(k),
        kind: 'bars',
        value: (i) => HA.usd(layers.now[k][i]),
      }))
      .reverse();
  };

  const totalsTable = (split, by) =>
    HA.table(
      [by, 'spend', 'share'],
      split.keys.map((key, k) => {
        const all = split.totals.reduce((a, b) => a + b, 0);
        return [
          key,
          HA.usd(split.totals[k]),
          all > 0 ? `${Math.round((100 * split.totals[k]) / all)} %` : '–',
        ];
      }),
      { id: 'spend-totals' },
    );

  /** The score of each variant with a score against the run's spend when it ended, cheapest first. */
  const scoreCostPoints = (variants, spend, scoreOf) => {
    const byGen = new Map(spend.filter((p) => p.generation !== null).map((p) => [p.generation, p]));
    const before = spend.find((p) => p.generation === null);
    let spent = before ? before.cumulativeUsd : 0;
    const points = [];
    for (const v of [...variants].sort((a, b) => a.generation - b.generation)) {
      if (byGen.has(v.generation)) spent = byGen.get(v.generation).cumulativeUsd;
      const score = scoreOf(v);
      if (score !== null) points.push({ id: v.id, cost: spent, score });
    }
    points.sort((a, b) => a.cost - b.cost || a.id - b.id);
    return {
      x: points.map((p) => p.cost),
      scores: points.map((p) => p.score),
      best: HA.bestSoFar(points.map((p) => p.score)),
      ids: points.map((p) => p.id),
    };
  };

  const noSpend = (run) =>
    h(
      'p',
      { class: 'muted' },
      `No spend recorded in ${run.llmCalls} model call(s)${run.simulated ? ' (the simulated model is free)' : ''}.`,
    );

  /**
   * The cost sections of a run page. `draw` draws them from the page's data; `update` patches them with new
   * data (a chart whose roles or models changed is drawn again).
   */
  // Over 80 lines: the sections' draw and update share their charts, legends and the split chosen.
  HA.costSections = (runId) => {
    // The legends read the latest values through these holders, which a live update refills.
    const state = { by: splitBy(), stackPlot: null, stackKeys: null, costPlot: null, layers: { now: [] } };
    const stackChart = h('div', { class: 'chart', id: 'spend-stack' });
    const totals = h('div', { id: 'spend-totals-box' });
    const costChart = h('div', { class: 'chart', id: 'score-cost-chart' });
    let last = null;
    const pick = h(
      'select',
      {
        id: 'spend-by',
        'aria-label': 'split the spend by',
        onchange: (e) => {
          state.by = e.target.value === 'model' ? 'model' : 'role';
          HA.setQuery('spend', state.by === 'model' ? 'model' : null);
          state.stackPlot = null;
          if (last) update(last);
        },
      },
      h('option', { value: 'role', selected: state.by === 'role' ? 'selected' : null }, 'by role'),
      h('option', { value: 'model', selected: state.by === 'model' ? 'selected' : null }, 'by model'),
    );

    const drawStack = (run, spend) => {
      const split = HA.spendLayers(spend, state.by);
      HA.patch(totals, split.keys.length === 0 ? null : totalsTable(split, state.by));
      if (run.costUsd === 0 || split.x.length === 0) {
        HA.patch(stackChart, noSpend(run));
        state.stackPlot = null;
        return;
      }
      state.layers.now = split.layers;
      const series = stackedSeries(split, state.layers);
      const keys = JSON.stringify(split.keys);
      if (state.stackPlot && state.stackKeys === keys) {
        state.stackPlot.setData([split.x, ...series.map((s) => s.values)]);
        return;
      }
      state.stackKeys = keys;
      state.stackPlot = HA.chart(stackChart, {
        x: split.x,
        xLabel: 'generation',
        integerX: true,
        xRange: (_u, min, max) => [min - 0.5, max + 0.5],
        yLabel: 'spend ($)',
        // Bars stand on 0, so each layer's height is its share.
        yRange: (_u, _min, max) => [0, max > 0 ? max * 1.05 : 1],
        series,
      });
      stackChart.__plot = state.stackPlot;
    };

    const drawCost = (run, variants, spend, scoreOf) => {
      const points = scoreCostPoints(variants, spend, scoreOf);
      costChart.__ids = points.ids;
      costChart.__scores = points.scores;
      if (run.costUsd === 0 || points.x.length === 0) {
        HA.patch(costChart, noSpend(run));
        state.costPlot = null;
        return;
      }
      if (state.costPlot) {
        state.costPlot.setData([points.x, points.scores, points.best]);
        return;
      }
      const plot = HA.chart(costChart, {
        x: points.x,
        xLabel: 'spend so far ($)',
        yLabel: 'score',
        yRange: [0, 1],
        series: [
          {
            label: 'variant',
            values: points.scores,
            color: '#555',
            kind: 'points',
            value: (i) => `${HA.score(costChart.__scores[i])} (variant ${costChart.__ids[i]})`,
          },
          { label: 'best so far', values: points.best, color: '#2ca02c', kind: 'step' },
        ],
      });
      plot.over.style.cursor = 'pointer';
      plot.over.addEventListener('click', () => {
        const i = plot.cursor.idx;
        const id = i === null || i === undefined ? null : costChart.__ids[i];
        if (id !== null && id !== undefined) location.assign(HA.href(variantPath(runId, id)));
      });
      costChart.__plot = plot;
      state.costPlot = plot;
    };

    const update = (data) => {
      last = data;
      drawStack(data.run, data.spend);
      drawCost(data.run, data.variants, data.spend, data.scoreOf);
    };

    return {
      sections: [
        HA.section('Spend per generation by role or model', h('p', {}, 'Split ', pick), stackChart, totals),
        HA.section(
          'Score against spend',
          h(
            'p',
            { class: 'muted' },
            'Each point a variant, at what the run had spent when it ended; click one to open it.',
          ),
          costChart,
        ),
      ],
      update,
    };
  };
}
