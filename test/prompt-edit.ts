/**
 * One generation of the scripted MetaAgent (`--sim-script`): it replaces the TaskAgent prompt's instruction
 * with `newText` through the editor tool, then ends with `summary`. On the sim's landscape the words chosen
 * decide whether the child is better or worse than its parent (docs/simulated-model.md).
 */
export function promptEdit(newText: string, summary = 'Done.'): unknown[] {
  return [
    {
      content: 'Editing.',
      toolCalls: [
        {
          name: 'editor',
          input: {
            command: 'str_replace',
            path: 'agents/task/prompt.md',
            old_str: 'Work out the answer the task asks for.',
            new_str: newText,
          },
        },
      ],
    },
    summary,
  ];
}
