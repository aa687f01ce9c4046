// Routes a page path to its view; keeps a running run's page live through server-sent events.

(() => {
  const HA = window.HA;
  const app = document.getElementById('app');
  let events = null;
  const state = {};

  function match(route) {
    const [pathname, query = ''] = route.split('?');
    const params = Object.fromEntries(new URLSearchParams(query));
    const parts = pathname.split('/').filter(Boolean).map(decodeURIComponent);
    if (parts.length === 0) return { view: 'runs', params };
    if (parts[0] === 'compare' && parts.length === 1) return { view: 'compareRuns', params };
    if (parts[0] !== 'runs' || parts.length < 2) return null;
    const run = parts[1];
    if (parts.length === 2) return { view: 'run', params: { run } };
    if (parts[2] === 'variants' && /^\d+$/.test(parts[3] || '') && parts.length === 4)
      return { view: 'variant', params: { run, id: Number(parts[3]) } };
    if (parts[2] === 'compare' && /^\d+$/.test(parts[3] || '') && /^\d+$/.test(parts[4] || ''))
      return { view: 'compareVariants', params: { run, a: parts[3], b: parts[4] } };
    return null;
  }

  async function render() {
    if (events) {
      events.close();
      events = null;
    }
    const found = match(HA.route());
    if (!found) {
      HA.fill(
        app,
        HA.h('p', { class: 'error' }, 'No such page. '),
        HA.h('a', { href: HA.href('/') }, 'All runs'),
      );
      return;
    }
    try {
      const result = await HA.views[found.view](app, found.params, state);
      if (found.view === 'run' && HA.mode === 'serve' && result && result.state === 'running')
        live(found.params.run);
      document.body.dataset.rendered = found.view;
      // Milliseconds from navigation start until the page was first drawn (read by the benchmark).
      if (!document.body.dataset.firstRenderMs)
        document.body.dataset.firstRenderMs = String(Math.round(performance.now()));
    } catch (error) {
      HA.fill(
        app,
        HA.h('p', { class: 'error', id: 'error' }, error.message),
        HA.h('a', { href: HA.href('/') }, 'All runs'),
      );
      document.body.dataset.rendered = 'error';
    }
  }

  /** Redraws the run page whenever the archive changes, until the run is no longer running. */
  function live(runId) {
    events = new EventSource(`/api/runs/${encodeURIComponent(runId)}/events`);
    let first = true;
    let drawing = Promise.resolve();
    events.addEventListener('change', () => {
      if (first) {
        first = false;
        return;
      }
      drawing = drawing.then(async () => {
        const run = await HA.views.run(app, { run: runId }, state).catch(() => null);
        document.body.dataset.updates = String(Number(document.body.dataset.updates || 0) + 1);
        if (run && run.state !== 'running') {
          events.close();
          await HA.views.run(app, { run: runId }, state);
        }
      });
    });
  }

  if (HA.mode === 'report') window.addEventListener('hashchange', render);
  render();
})();
