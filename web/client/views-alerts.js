// A run page's Alerts section (what `--notify` and `--notify-cmd` were sent, and whether each got there) and
// its estimate at the start against what the run has taken. Each is drawn once and patched by a live update:
// rows of new alerts are added, the rows whose delivery moved are patched.

{
  const HA = window.HA;
  const { h } = HA;

  const when = (iso) => iso.replace('T', ' ').slice(0, 19);

  const STATE_WORDS = {
    delivered: 'delivered',
    failed: 'failed',
    retrying: 'failed, being retried',
    sending: 'being sent',
    unknown: 'no outcome recorded',
  };
  const STATE_CLASS = {
    delivered: 'delivery-ok',
    failed: 'delivery-failed',
    retrying: 'delivery-failed',
    sending: 'muted',
    unknown: 'muted',
  };

  /** One destination's delivery: its state, the attempts, and why each failed attempt failed. */
  const deliveryText = (d) => {
    const tries = d.attempts > 1 ? ` on attempt ${d.attempts}` : '';
    const state =
      d.state === 'delivered'
        ? `delivered${tries}`
        : d.state === 'failed'
          ? `failed after ${d.attempts} attempt${d.attempts === 1 ? '' : 's'}`
          : STATE_WORDS[d.state];
    return h(
      'div',
      { class: 'delivery', 'data-target': d.target, 'data-state': d.state },
      `${d.target}: `,
      h('span', { class: STATE_CLASS[d.state] }, state),
      d.errors.length === 0
        ? null
        : h(
            'ul',
            { class: 'delivery-errors' },
            d.errors.map((e, i) => h('li', {}, `attempt ${i + 1}: ${e}`)),
          ),
    );
  };

  const alertCells = (a) => [
    when(a.time),
    a.percent === null ? a.type : `${a.type} ${a.percent} %`,
    a.message,
    a.deliveries.length === 0
      ? h('span', { class: 'muted' }, 'no destination')
      : a.deliveries.map(deliveryText),
  ];

  const alertRow = (a) =>
    h(
      'tr',
      {},
      alertCells(a).map((c) => h('td', {}, c)),
    );

  /** Where the alerts go, or that they go nowhere and how to send them somewhere. */
  const targetsText = (alerts) =>
    alerts.targets.length === 0
      ? h(
          'p',
          { id: 'alerts-none', class: 'muted' },
          'This run has no alert destination: nobody is told when it stalls, nears or reaches its budget, fails ' +
            'several generations in a row, hits a harness error or ends. Give generate-loop --notify URL (a ' +
            "webhook, POSTed each alert's JSON) or --notify-cmd CMD (a command, given the JSON on stdin); " +
            '--resume keeps them, and adds them to a run that had none.',
        )
      : h(
          'p',
          { id: 'alerts-targets' },
          'Alerts go to ',
          alerts.targets.map((t) => t.label).join(' and '),
          '.',
        );

  /** The Alerts section; `update` patches it with a newer page's data. */
  HA.alertsSection = () => {
    const targets = h('div', { id: 'alerts-where' });
    const empty = h('p', { id: 'alerts-empty', class: 'muted' }, 'No alert sent yet.');
    const table = HA.table(['sent', 'alert', 'message', 'delivery'], [], { id: 'alerts' });
    const body = table.querySelector('tbody');
    const update = (data) => {
      const alerts = data.alerts;
      if (!alerts) return;
      HA.patch(targets, targetsText(alerts));
      alerts.alerts.forEach((a, i) => {
        const tr = body.children[i];
        if (!tr) body.appendChild(alertRow(a));
        else
          alertCells(a).forEach((c, k) => {
            HA.patch(tr.children[k], c);
          });
      });
      empty.hidden = alerts.alerts.length > 0 || alerts.targets.length === 0;
      table.hidden = alerts.alerts.length === 0;
    };
    return { section: HA.section('Alerts', targets, empty, table), update };
  };

  const seconds = (s) =>
    s < 90 ? `${Math.round(s)} s` : s < 5400 ? `${Math.round(s / 60)} min` : `${(s / 3600).toFixed(1)} h`;
  const range = (r, format) =>
    r.low === r.high ? `about ${format(r.low)}` : `${format(r.low)}–${format(r.high)}`;
  const calls = (n) => Math.round(n).toLocaleString('en-US');

  const estimateRow = (label, figures, isRange) =>
    h(
      'tr',
      {},
      h('th', { scope: 'row' }, label),
      h('td', {}, isRange ? range(figures.calls, calls) : calls(figures.calls)),
      h('td', {}, isRange ? range(figures.usd, HA.usd) : HA.usd(figures.usd)),
      h('td', {}, isRange ? range(figures.seconds, seconds) : seconds(figures.seconds)),
    );

  const estimateLabel = (e) =>
    `estimated at ${e.resumed ? `the resume (${e.generations} generations left)` : `the start (${e.generations} generations)`}` +
    (e.from === null ? '' : `, at the rates of ${e.from}`);

  const estimateRows = (data) => {
    const est = data.estimate;
    return [
      ...est.estimates.map((e) => estimateRow(estimateLabel(e), e, true)),
      estimateRow(data.run.state === 'running' ? 'so far' : 'what it took', est.actual, false),
      est.projected === null ? null : estimateRow('to the end at this pace', est.projected, false),
    ];
  };

  /**
   * The estimate at the start against the run's calls, cost and time, and its pace to the end; `update` patches
   * the rows and the printed lines apart, so an open "What was printed" stays open.
   */
  HA.estimateSection = () => {
    const none = h(
      'p',
      { id: 'estimate-none', class: 'muted' },
      'No estimate was recorded when this run started (a replayed run calls no model; runs from before ' +
        'estimates were recorded have none). generate-loop --estimate prints one without running.',
    );
    const table = h(
      'table',
      { id: 'estimate' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['', 'model calls', 'cost', 'time'].map((c) => h('th', {}, c)),
        ),
      ),
      h('tbody', {}),
    );
    const lines = h('pre', { id: 'estimate-lines' });
    const printed = h('details', {}, h('summary', {}, 'What was printed'), lines);
    return {
      section: HA.section('Estimate and what happened', none, table, printed),
      update: (data) => {
        if (!data.estimate) return;
        const recorded = data.estimate.estimates;
        none.hidden = recorded.length > 0;
        printed.hidden = recorded.length === 0;
        HA.patch(table.querySelector('tbody'), estimateRows(data));
        HA.patch(lines, recorded.flatMap((e) => e.lines).join('\n'));
      },
    };
  };
}
