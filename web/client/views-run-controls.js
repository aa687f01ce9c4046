// A running run's controls on its page, as `hyperagents control` gives them, and what a live update may set
// of them: an update asked for while a control was under way does not turn Pause and Resume.

{
  const HA = window.HA;
  const { h } = HA;

  /**
   * The controls of a running run, as `hyperagents control` gives them: Pause / Resume, Stop after those under
   * way, a budget and a note. Drawn once (a live update only turns Pause and Resume on and off, so what is
   * typed stays); without the token the box says where to get it.
   */
  // Over 80 lines: the box's buttons and forms share its token, its state and the run they steer.
  HA.controlBox = (run, health) => {
    if (!HA.controlsOn) return null;
    const box = h('section', { id: 'run-controls', class: 'run-controls' }, h('h2', {}, 'Steer the run'));
    if (!HA.controlToken(run.id)) {
      box.appendChild(
        h(
          'p',
          { class: 'muted', id: 'control-token-missing' },
          'To steer this run from here, open once the address hyperagents serve printed (it ends in #token=…) ' +
            'or the one generate-loop printed for this run (it ends in #secret=…); ' +
            'or use hyperagents control on the terminal.',
        ),
      );
      return box;
    }
    const result = h('p', { id: 'control-result', role: 'status', 'aria-live': 'polite' });
    const send = async (control, done) => {
      result.className = '';
      result.textContent = 'sending…';
      controls.sent++;
      try {
        const answer = await HA.sendControl(run.id, control);
        result.textContent = answer.message;
        if (done) done();
        if (control.action === 'pause' || control.action === 'resume')
          HA.setPaused(box, control.action === 'pause');
      } catch (error) {
        result.className = 'error';
        result.textContent = error.message;
      } finally {
        controls.answered++;
      }
    };
    const button = (id, label, control, title) =>
      h('button', { type: 'button', id, title, onclick: () => send(control) }, label);
    const budget = h('input', {
      type: 'number',
      id: 'control-budget',
      min: '0',
      step: '0.01',
      placeholder: health && health.budgetUsd !== null ? health.budgetUsd.toFixed(2) : 'USD',
      'aria-label': 'budget in US dollars for the whole run',
    });
    const note = h('input', {
      type: 'text',
      id: 'control-note',
      placeholder: 'a note for the next MetaAgent',
      'aria-label': 'note for the next MetaAgent',
    });
    box.append(
      h(
        'div',
        { class: 'control-row' },
        button('control-pause', 'Pause', { action: 'pause' }, 'start no new generation until Resume'),
        button('control-resume', 'Resume', { action: 'resume' }, 'start generations again'),
        button(
          'control-stop-after',
          'Stop after those under way',
          { action: 'stop-after' },
          'let the generations under way finish, start no more, and stop (it can be resumed)',
        ),
      ),
      h(
        'form',
        {
          class: 'control-row',
          id: 'control-budget-form',
          onsubmit: (e) => {
            e.preventDefault();
            const value = Number(budget.value);
            if (budget.value.trim() === '' || !Number.isFinite(value) || value < 0) {
              result.className = 'error';
              result.textContent = 'Give the budget in US dollars, 0 or more (e.g. 5 or 2.50).';
              return;
            }
            send({ action: 'budget', value }, () => {
              budget.value = '';
            });
          },
        },
        h('label', {}, 'Budget $ ', budget),
        h('button', { type: 'submit', id: 'control-budget-set' }, 'Set budget'),
      ),
      h(
        'form',
        {
          class: 'control-row',
          id: 'control-note-form',
          onsubmit: (e) => {
            e.preventDefault();
            const text = note.value.trim();
            if (text === '') {
              result.className = 'error';
              result.textContent = 'Write the note first.';
              return;
            }
            send({ action: 'note', value: text }, () => {
              note.value = '';
            });
          },
        },
        note,
        h('button', { type: 'submit', id: 'control-note-add' }, 'Add note'),
      ),
      result,
    );
    HA.setPaused(box, health ? health.paused : false);
    return box;
  };

  /**
   * Controls sent from this page and answered. An update asked for before the latest control was
   * answered may say what held before it, so it does not set the buttons.
   */
  const controls = { sent: 0, answered: 0 };

  /** What was sent and answered so far, kept by a live update as it asks. */
  HA.controlsSeen = () => ({ ...controls });

  /** True when no control was under way as an update was asked for, and none was sent since. */
  HA.controlsSettled = (seen) => seen.sent === seen.answered && seen.sent === controls.sent;

  /** Turns Pause off while paused and Resume off while not. */
  HA.setPaused = (box, paused) => {
    const pause = box.querySelector('#control-pause');
    const resume = box.querySelector('#control-resume');
    if (pause) pause.disabled = paused;
    if (resume) resume.disabled = !paused;
  };
}
