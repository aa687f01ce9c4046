// Charts drawn with uPlot (served from the project's node_modules).

(() => {
  const HA = window.HA;
  const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#e377c2', '#17becf'];
  HA.palette = (i) => PALETTE[i % PALETTE.length];

  /**
   * A chart in `el`. `x`: numbers; `series`: {label, values, color, kind: 'points'|'line'|'step'|'bars', width,
   * dash, value: (index) => legend text}; `bands`: [[upperIndex, lowerIndex, fill]] (series indexes, 1-based as
   * uPlot counts them). `onCursor(index)`: called as the pointer moves over the chart, with the index into `x`
   * (null off it).
   */
  HA.chart = (el, { x, series, xLabel, yLabel, bands, time, xRange, yRange, integerX, legend, onCursor }) => {
    const widthOf = () => Math.max(240, el.clientWidth || 720);
    const width = widthOf();
    const uSeries = [{ label: xLabel }];
    for (const s of series) {
      const base = { label: s.label, stroke: s.color, width: s.width || 2, spanGaps: s.spanGaps !== false };
      if (s.dash) base.dash = s.dash;
      if (s.fill) base.fill = s.fill;
      if (s.value)
        base.value = (_u, _v, _si, idx) => (idx === null || idx === undefined ? '–' : s.value(idx));
      if (s.kind === 'bars') {
        uSeries.push({
          ...base,
          width: 1,
          fill: s.color,
          paths: uPlot.paths.bars({ size: [0.7, 48] }),
          points: { show: false },
        });
      } else if (s.kind === 'points') {
        uSeries.push({
          ...base,
          paths: () => null,
          points: { show: true, size: 7, fill: s.color, stroke: s.color },
        });
      } else if (s.kind === 'step') {
        uSeries.push({ ...base, paths: uPlot.paths.stepped({ align: 1 }), points: { show: false } });
      } else {
        uSeries.push({ ...base, points: { show: s.showPoints !== false, size: 6 } });
      }
    }
    const opts = {
      width,
      height: 280,
      scales: {
        x: xRange ? { time: Boolean(time), range: xRange } : { time: Boolean(time) },
        y: yRange ? { range: yRange } : {},
      },
      axes: [
        integerX ? { label: xLabel, incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000] } : { label: xLabel },
        { label: yLabel },
      ],
      series: uSeries,
      legend: { show: legend !== false, live: true },
      cursor: { points: { size: 8 } },
    };
    if (onCursor) opts.hooks = { setCursor: [(u) => onCursor(u.cursor.idx ?? null)] };
    if (bands) opts.bands = bands.map(([hi, lo, fill]) => ({ series: [hi, lo], fill }));
    HA.fill(el);
    const plot = new uPlot(opts, [x, ...series.map((s) => s.values)], el);
    // The chart follows its box's width (a resized window, a phone turned).
    if (el.__resize) el.__resize.disconnect();
    el.__resize = new ResizeObserver(() => {
      const next = widthOf();
      if (next !== plot.width) plot.setSize({ width: next, height: plot.height });
    });
    el.__resize.observe(el);
    return plot;
  };
})();
