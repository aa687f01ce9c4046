// A run page's charts: its score per generation (a click opens that generation's variant) with the best so
// far and the lineage of the best, and its spend so far; a live update gives each new data.

{
  const HA = window.HA;
  const { h, variantPath } = HA;

  /** The scores the run page charts, by generation, under `scoreOf`; the best variant's lineage. */
  HA.scoreSeries = (variants, scoreOf) => {
    const maxGen = Math.max(0, ...variants.map((v) => v.generation));
    const gens = Array.from({ length: maxGen + 1 }, (_, g) => g);
    const byGen = new Map(variants.map((v) => [v.generation, v]));
    const perGen = gens.map((g) => (byGen.has(g) ? scoreOf(byGen.get(g)) : null));
    let bestId = null;
    for (const v of variants) {
      const sc = scoreOf(v);
      if (sc !== null && (bestId === null || sc > scoreOf(byGen.get(bestId)))) bestId = v.id;
    }
    const bestLineage = bestId === null ? [] : HA.lineage(variants, bestId);
    const scored = variants.map(scoreOf).filter((sc) => sc !== null);
    const scoreRange = scored.length === 0 ? [0, 1] : [Math.min(...scored), Math.max(...scored)];
    const onLineage = new Set(bestLineage);
    const lineageValues = gens.map((g) => (onLineage.has(g) ? perGen[g] : null));
    // A failed or rejected generation is marked at the foot of the chart, so failures are seen too.
    const failedValues = gens.map((g) => {
      const v = byGen.get(g);
      return v && (v.outcome === 'failed' || v.outcome === 'rejected') ? 0 : null;
    });
    const ids = gens.map((g) => (byGen.has(g) ? byGen.get(g).id : null));
    return {
      gens,
      perGen,
      best: HA.bestSoFar(perGen),
      bestLineage,
      scoreRange,
      lineageValues,
      failedValues,
      ids,
    };
  };

  HA.scoreData = (series) => [
    series.gens,
    series.perGen,
    series.best,
    series.lineageValues,
    series.failedValues,
  ];

  /** The score chart; a click on it opens the variant of the generation under the pointer. */
  HA.drawScores = (chart, series, runId) => {
    chart.__ids = series.ids;
    const plot = HA.chart(chart, {
      x: series.gens,
      xLabel: 'generation',
      integerX: true,
      yLabel: 'score',
      yRange: [0, 1],
      series: [
        { label: 'variant', values: series.perGen, color: '#888', kind: 'points' },
        { label: 'best so far', values: series.best, color: '#2ca02c', kind: 'step' },
        { label: 'lineage of the best', values: series.lineageValues, color: '#d4a017', width: 2 },
        { label: 'failed or rejected', values: series.failedValues, color: '#c62828', kind: 'points' },
      ],
    });
    plot.over.style.cursor = 'pointer';
    plot.over.addEventListener('click', () => {
      const id =
        plot.cursor.idx === null || plot.cursor.idx === undefined ? null : chart.__ids[plot.cursor.idx];
      if (id !== null && id !== undefined) location.assign(HA.href(variantPath(runId, id)));
    });
    return plot;
  };

  /** The run's spend so far after each generation (one point a generation), or why there is none. */
  HA.spendData = (spend) => {
    const points = spend.filter((p) => p.generation !== null);
    return [points.map((p) => p.generation), points.map((p) => p.cumulativeUsd)];
  };

  HA.drawSpend = (chart, run, spend) => {
    const spent = spend.length > 0 ? spend[spend.length - 1].cumulativeUsd : 0;
    if (spent === 0) {
      HA.patch(
        chart,
        h(
          'p',
          { class: 'muted' },
          `No spend recorded in ${run.llmCalls} model call(s)${run.simulated ? ' (the simulated model is free)' : ''}.`,
        ),
      );
      return null;
    }
    const [x, y] = HA.spendData(spend);
    return HA.chart(chart, {
      x,
      xLabel: 'generation',
      integerX: true,
      yLabel: 'spend so far ($)',
      series: [{ label: 'spend so far', values: y, color: '#1f77b4' }],
    });
  };

  HA.legendText = (series) => {
    const [low, high] = series.scoreRange;
    return `Colour: score, red ${HA.score(low)} (lowest) → green ${HA.score(high)} (highest). Square: rejected at the gate. Ring: failed. Gold: the lineage of the best. Point at a variant to preview it, click it to open it; drag to pan, the wheel or + and − to zoom.`;
  };
}
