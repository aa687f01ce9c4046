// A run's health at the top of its page: its state and why, the resume command, failures by cause, budget,
// pace and what is left at it, and the controls it was given.

{
  const HA = window.HA;
  const { h, stateBadge } = HA;

  /** A run's failures by cause: "2 timeout, 1 crash". */
  HA.failureText = (health) => health.failures.map((f) => `${f.count} ${f.cause}`).join(', ');

  const hours = (x) => (x < 1 ? `${Math.round(x * 60)} min` : `${x.toFixed(1)} h`);

  /** The run's health: state and why, the resume command, failures, budget, pace and what is left. */
  HA.healthBox = (run, health) => {
    if (!health) return null;
    const facts = [
      `${health.finished} of ${run.generationsPlanned ?? '?'} generations ended`,
      health.failed === 0 ? 'none failed' : `${health.failed} failed (${HA.failureText(health)})`,
    ];
    const budget =
      health.budgetUsd === null
        ? `spent ${HA.usd(health.spentUsd)} (no budget set)`
        : `spent ${HA.usd(health.spentUsd)} of the ${HA.usd(health.budgetUsd)} budget (${
            health.budgetUsd > 0 ? Math.round((100 * health.spentUsd) / health.budgetUsd) : 100
          } %)`;
    return h(
      'div',
      { class: `health health-${health.level}` },
      h(
        'p',
        { class: 'health-state' },
        stateBadge(health.state),
        ' ',
        h('span', { id: 'health-why' }, health.why),
      ),
      health.resume
        ? h('p', {}, 'Continue it with: ', h('code', { id: 'resume-command' }, health.resume))
        : null,
      (health.waiting ?? []).length === 0
        ? null
        : h(
            'ul',
            { id: 'health-waiting', class: 'health-warning' },
            health.waiting.map((m) => h('li', {}, m)),
          ),
      h('p', { id: 'health-failures' }, facts.join(' · ')),
      h('p', { id: 'health-budget' }, budget),
      h(
        'p',
        { id: 'health-pace' },
        health.perHour === null
          ? 'No generation has ended yet.'
          : `${health.perHour.toFixed(1)} generations per hour`,
        health.estimate
          ? ` · at this pace, ${health.estimate.generations} more take about ${hours(health.estimate.hours)} and ${HA.usd(health.estimate.costUsd)}`
          : '',
      ),
      health.controls.length === 0
        ? null
        : h(
            'ul',
            { id: 'controls' },
            health.controls.map((c) =>
              h(
                'li',
                {},
                `${c.ts.replace('T', ' ').slice(0, 19)} ${c.action}${c.value === null ? '' : ` ${c.value}`}`,
              ),
            ),
          ),
    );
  };
}
