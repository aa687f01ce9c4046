// What the MetaAgent did to make a variant: its own account, its transcript, and the variant's logs, each
// read when opened.

{
  const HA = window.HA;
  const { h, variantPath } = HA;

  /** The MetaAgent's transcript, every message as text; when it left none, its log (every step it took). */
  HA.transcriptView = (t, v, logs, hasMetaLog) =>
    t === null
      ? v.parent === null
        ? h('p', { class: 'muted' }, 'The initial agent was not made by a MetaAgent.')
        : h(
            'div',
            { id: 'transcript' },
            logs.meta
              ? [
                  h('p', {}, `The MetaAgent left no transcript; its log holds every step it took:`),
                  logs.meta.inline(),
                ]
              : h(
                  'p',
                  { class: 'muted' },
                  hasMetaLog
                    ? 'The MetaAgent left no transcript; its log (meta-agent.log) holds every step it took: run hyperagents serve to read it.'
                    : 'The MetaAgent left no transcript and no log.',
                ),
          )
      : h(
          'div',
          { id: 'transcript' },
          h('p', {}, `Status ${t.status}, ${t.toolCalls ?? '?'} tool calls, ${t.messages.length} messages.`),
          t.messages.map((m) => {
            const tools = m.toolCalls && m.toolCalls.length > 0 ? m.toolCalls : null;
            return h(
              'details',
              { class: `msg msg-${m.role}`, open: m.role === 'assistant' ? 'open' : null },
              h('summary', {}, m.role, tools ? ` → ${tools.map((c) => c.name).join(', ')}` : ''),
              h('pre', {}, m.content),
              tools ? h('pre', { class: 'tool-calls' }, JSON.stringify(tools, null, 2)) : null,
            );
          }),
        );

  /** What the MetaAgent did: how it ended, its tool and model calls, the files it changed, its own account. */
  HA.metaPanel = (m) => {
    if (m === null) return h('p', { class: 'muted' }, 'The initial agent was not made by a MetaAgent.');
    const calls =
      m.toolCalls === null
        ? 'its tool calls are not known'
        : `${m.toolCalls} tool call(s)${m.toolCallsFrom === 'log' ? ' (counted in its log)' : ''}`;
    const files = m.changedFiles.length === 0 ? 'no file changed' : `changed ${m.changedFiles.join(', ')}`;
    return h(
      'div',
      { id: 'meta-agent' },
      h('p', { id: 'meta-ended' }, `It ${m.ended}: ${calls}, ${m.modelCalls} model call(s), ${files}.`),
      m.finished
        ? h('pre', { class: 'summary', id: 'summary' }, m.summary || '–')
        : [
            h('p', { class: 'muted' }, 'It did not finish, so it wrote no summary of its change.'),
            m.lastMessage
              ? h(
                  'details',
                  { class: 'last-message' },
                  h('summary', {}, 'its last message, where it stopped'),
                  h('pre', {}, m.lastMessage),
                )
              : null,
          ],
    );
  };

  const LOG_ROLES = { 'meta-agent.log': 'meta', 'gate.log': 'gate', 'task-agent.log': 'task' };

  /**
   * The variant's logs, each read when opened (they can be large); `opener` links open one, `inline` shows
   * one already open elsewhere. A report does not hold logs.
   */
  HA.logPanels = (runId, v, logs) => {
    const byRole = {};
    for (const log of logs) {
      const api = `${variantPath(runId, v.id)}/logs/${encodeURIComponent(log.name)}`;
      const load = async (box) => {
        try {
          const got = await HA.get(api);
          HA.fill(box, h('pre', { class: 'log-text' }, got.text));
        } catch (error) {
          HA.fill(box, h('p', { class: 'error' }, error.message));
        }
      };
      const box = h('div', {}, h('p', { class: 'muted' }, 'Loading…'));
      const panel = h(
        'details',
        { class: 'log', id: `log-${LOG_ROLES[log.name] || 'other'}` },
        h('summary', {}, `${log.name} (${HA.byteSize(log.bytes)})`),
        HA.mode === 'serve'
          ? h('p', {}, h('a', { href: `/api${api}?format=text` }, 'open as plain text'))
          : null,
        box,
      );
      let loaded = false;
      panel.addEventListener('toggle', () => {
        if (panel.open && !loaded) {
          loaded = true;
          load(box);
        }
      });
      byRole[LOG_ROLES[log.name] || log.name] = {
        panel,
        opener: (label) =>
          h(
            'a',
            {
              href: `#log-${LOG_ROLES[log.name]}`,
              onclick: (e) => {
                e.preventDefault();
                panel.open = true;
                panel.scrollIntoView();
              },
            },
            label,
          ),
        inline: () => {
          const here = h('div', { class: 'log-inline' }, h('p', { class: 'muted' }, 'Loading…'));
          load(here);
          return here;
        },
      };
    }
    const section = HA.section(
      'Logs',
      logs.length === 0
        ? h('p', { class: 'muted' }, 'This variant has no logs.')
        : HA.mode === 'serve'
          ? logs.map((log) => byRole[LOG_ROLES[log.name] || log.name].panel)
          : h(
              'p',
              { class: 'muted' },
              `${logs.map((l) => l.name).join(', ')}: run hyperagents serve to read them.`,
            ),
    );
    section.id = 'logs';
    return { section, byRole: HA.mode === 'serve' ? byRole : {} };
  };
}
