// Routes a page path to its view; keeps a live page (the runs, a running run) up to date in place.
// Over 80 lines: the script's own scope (the page loads it without modules): its routes and live state.
(() => {
  const HA = window.HA;
  const app = document.getElementById('app');
  const pollMs = Number(document.body.dataset.pollMs || 1000);
  const state = {};
  let live = null;

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

  /** The bar above a live page: that it is live, and the toggle that pauses its updates. */
  const bar = (() => {
    const pause = HA.h('input', { type: 'checkbox', id: 'live-pause' });
    const status = HA.h('span', { id: 'live-status', class: 'muted' });
    const el = HA.h(
      'div',
      { id: 'live-bar', class: 'live-bar', hidden: 'hidden' },
      HA.badge('live', 'live'),
      ' ',
      HA.h('label', {}, pause, ' Pause live updates'),
      ' ',
      status,
    );
    if (HA.mode === 'serve') app.before(el);
    pause.addEventListener('change', () => {
      document.body.dataset.paused = pause.checked ? 'true' : 'false';
      status.textContent = pause.checked ? 'paused: the page shows the run as it was' : '';
      if (!pause.checked && live) live.now();
    });
    return {
      show: (on) => {
        el.hidden = !on;
      },
      paused: () => pause.checked,
    };
  })();

  function stopLive() {
    if (live) live.stop();
    live = null;
    bar.show(false);
  }

  /**
   * Polls the view's change mark every pollMs; when it moved, the view fetches what changed and patches
   * itself in place. Stops when the view says it is no longer live, or another page is drawn.
   */
  function startLive(view) {
    let mark = view.mark;
    let timer = null;
    let stopped = false;
    let busy = false;
    const tick = async () => {
      clearTimeout(timer);
      if (stopped || busy) return;
      busy = true;
      try {
        if (!bar.paused()) {
          const now = await HA.get(view.markPath);
          if (!stopped && now.mark !== mark) {
            const result = await view.refresh();
            mark = result.mark;
            document.body.dataset.updates = String(Number(document.body.dataset.updates || 0) + 1);
            if (!result.live) {
              stopLive();
              return;
            }
          }
        }
      } catch {
        // The server is gone or busy: try again at the next tick.
      } finally {
        busy = false;
      }
      if (!stopped) timer = setTimeout(tick, pollMs);
    };
    live = {
      stop() {
        stopped = true;
        clearTimeout(timer);
      },
      now: tick,
    };
    bar.show(true);
    timer = setTimeout(tick, pollMs);
  }

  let shown = null;
  async function render() {
    stopLive();
    shown = HA.route();
    const found = match(shown);
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
      if (HA.mode === 'serve' && result && result.live) startLive(result.live);
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

  if (HA.mode === 'report') window.addEventListener('hashchange', render);
  // Back and forward between states of one view (HA.navigate); a change of the #fragment alone is no new page.
  else
    window.addEventListener('popstate', () => {
      if (HA.route() !== shown) render();
    });
  render();
})();
