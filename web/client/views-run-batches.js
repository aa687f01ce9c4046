// A run's batches (`--batch`), on its page: each pending batch's state, requests done of total and how long it
// has waited (counted on between the run's polls), the spend through batches and what it saved, and every
// batch in a table. Hidden for a run that used none.

{
  const HA = window.HA;
  const { h } = HA;

  /** `45s`, `4m10s`, `2h05m`: as the progress line writes a wait. */
  HA.waited = (seconds) => {
    const s = Math.max(0, Math.round(seconds));
    const pad = (n) => String(n).padStart(2, '0');
    if (s < 60) return `${s}s`;
    if (s < 3600) return `${Math.floor(s / 60)}m${pad(s % 60)}s`;
    return `${Math.floor(s / 3600)}h${pad(Math.floor((s % 3600) / 60))}m`;
  };

  const isPending = (b) => b.state === 'pending' || b.state === 'submitting';
  const nameOf = (b) => b.providerBatchId || `#${b.id} (not yet submitted)`;
  const stateOf = (b) =>
    isPending(b)
      ? b.providerState || 'submitted'
      : b.state === 'ended'
        ? b.providerState || 'ended'
        : b.state;

  const pendingLine = (b, waitedSec) =>
    h(
      'li',
      { class: 'batch-pending' },
      `Batch ${nameOf(b)} (variant ${b.variantId}${b.round === null ? '' : `, round ${b.round}`}): `,
      h('strong', {}, stateOf(b)),
      `, ${b.done}/${b.requests} requests done${b.failed > 0 ? `, ${b.failed} failed` : ''}, waiting `,
      h('span', { class: 'batch-waited' }, HA.waited(waitedSec)),
    );

  const spendLine = (batches) =>
    `Through batches: ${HA.usd(batches.costUsd)} in ${batches.calls} model call(s) at the batch price, ` +
    `${HA.usd(batches.savedUsd)} less than the same calls would have cost as ordinary calls.`;

  const rows = (batches) =>
    batches.batches.map((b) => [
      nameOf(b),
      String(b.variantId),
      b.round === null ? '–' : String(b.round),
      stateOf(b),
      `${b.done}/${b.requests}`,
      String(b.failed),
      HA.waited(b.waitedSec),
    ]);

  /**
   * The Batches section; `update` patches it with the page's data, and while a batch is pending its wait is
   * counted on every second from what the server said when the data came.
   */
  HA.batchSection = () => {
    const spend = h('p', { id: 'batch-spend' });
    const pending = h('ul', { id: 'batch-pending' });
    const table = h('div', { id: 'batches-box' });
    const section = HA.section('Batches', spend, pending, table);
    section.id = 'batches-section';
    let ticker = null;
    const update = (data) => {
      const batches = data.batches;
      section.hidden = !batches;
      if (ticker !== null) clearInterval(ticker);
      ticker = null;
      if (!batches) return;
      HA.patch(spend, spendLine(batches));
      const open = batches.batches.filter(isPending);
      const got = Date.now();
      const draw = () => {
        // The page was drawn again or left: this section is gone.
        if (!section.isConnected && ticker !== null) {
          clearInterval(ticker);
          ticker = null;
          return;
        }
        const extra = (Date.now() - got) / 1000;
        HA.patch(pending, ...open.map((b) => pendingLine(b, b.waitedSec + extra)));
      };
      draw();
      pending.hidden = open.length === 0;
      // A report is a snapshot: its waits stay as they were when it was written.
      if (open.length > 0 && HA.mode === 'serve') ticker = setInterval(draw, 1000);
      HA.patch(
        table,
        HA.table(['batch', 'variant', 'round', 'state', 'done', 'failed', 'waited'], rows(batches), {
          id: 'batches',
        }),
      );
    };
    return { section, update };
  };
}
