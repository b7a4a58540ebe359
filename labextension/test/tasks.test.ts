import { execFileSync } from 'child_process';
import React from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';

import { taskResultCode } from '../src/codegen';
import { Tasks } from '../src/components/Tasks';
import { ITaskInfo, parseKernelMessage, parseSnapshot } from '../src/messages';
import { elapsedSeconds, formatElapsed, taskViews } from '../src/view';

const HOSTILE = [
  'my server',
  'x$HOME',
  'a{__import__("os").system("id")}',
  'quote\'and"double',
  'line\nbreak\r\u2028sep',
  '-h',
  '")\nimport os; os.system("id")  #',
  'back\\slash\u0000nul'
];

/** The string arguments of the calls in `code`, in source order, as Python's own parser reads them. */
function pythonStrings(code: string): string[] {
  const script =
    'import ast, json, sys\n' +
    'tree = ast.parse(sys.stdin.read())\n' +
    'assert len(tree.body) == 2, ast.dump(tree)\n' +
    'found = [n for n in ast.walk(tree.body[1]) if isinstance(n, ast.Constant)]\n' +
    'print(json.dumps([n.value for n in sorted(found, key=lambda n: n.col_offset)]))';
  return JSON.parse(
    execFileSync('python3', ['-c', script], { input: code, encoding: 'utf8' })
  );
}

describe('Result writes mj.get_connection(NAME).task(ID).result()', () => {
  it('for plain names', () => {
    expect(taskResultCode('ev', 'abc-123')).toBe(
      'import mcp_jupyter as mj\nmj.get_connection("ev").task("abc-123").result()'
    );
  });
  for (const name of HOSTILE) {
    it(`with the hostile name and id ${JSON.stringify(name)}: Python reads back exactly them`, () => {
      const code = taskResultCode(name, `${name}-id`);
      expect(code.split('\n')).toHaveLength(2); // nothing in a name starts a statement
      expect(pythonStrings(code)).toEqual([name, `${name}-id`]);
    });
  }
});

const START = Date.parse('2026-01-01T10:00:00Z');

function task(status: string, extra: Partial<ITaskInfo> = {}): ITaskInfo {
  return {
    id: `id-${status}`,
    tool: 'simulate-research-query',
    arguments: "topic='MCP', ambiguous=True",
    status,
    message: `${status} message`,
    created: '2026-01-01T10:00:00Z',
    updated: '2026-01-01T10:00:30Z',
    gone: false,
    ...extra
  };
}

function render(tasks: ITaskInfo[], runs = true): string {
  const actions = { write: () => undefined, runs, code: { magics: true } };
  return renderToStaticMarkup(
    React.createElement(Tasks, {
      connection: 'ev',
      tasks,
      channel: null,
      actions,
      now: START + 95_000
    })
  );
}

describe('the Tasks section', () => {
  it('renders nothing for a connection without tasks', () => {
    expect(render([])).toBe('');
  });

  it('shows each status with its badge, Cancel on running ones, Result on ended ones', () => {
    const statuses = [
      'working',
      'input_required',
      'completed',
      'failed',
      'cancelled'
    ];
    const html = render(statuses.map(s => task(s)));
    expect(html).toContain('Tasks <span class="mcpj-count">5</span>');
    const rows = html.split('<li ').slice(1);
    const row = (status: string): string =>
      rows.find(r => r.includes(`data-status="${status}"`))!;
    expect(row('working')).toContain(
      '<span class="mcpj-tag mcpj-task-status mcpj-task-active" title="working">working</span>'
    );
    expect(row('input_required')).toContain('>needs input</span>');
    expect(row('completed')).toContain('mcpj-task-completed');
    expect(row('failed')).toContain('mcpj-task-failed');
    expect(row('cancelled')).toContain('mcpj-task-cancelled');
    for (const status of statuses) {
      const active = status === 'working' || status === 'input_required';
      const ended = status === 'completed' || status === 'failed';
      expect(row(status).includes('mcpj-task-cancel"'), status).toBe(active);
      expect(row(status).includes('mcpj-task-result"'), status).toBe(ended);
      expect(row(status)).toContain(
        `<div class="mcpj-description mcpj-task-message">${status} message</div>`
      );
      expect(row(status)).toContain(
        '<div class="mcpj-detail mcpj-task-args" title="Arguments: topic=&#x27;MCP&#x27;, ambiguous=True">' +
          'topic=&#x27;MCP&#x27;, ambiguous=True</div>'
      );
    }
    expect(render([task('working', { arguments: '' })])).not.toContain(
      'mcpj-task-args'
    ); // none given
    // elapsed: until now while running, until the last change once ended
    expect(row('working')).toContain(
      '<span class="mcpj-task-elapsed" title="Running time">1 min 35 s</span>'
    );
    expect(row('completed')).toContain(
      '<span class="mcpj-task-elapsed" title="Running time">30 s</span>'
    );
    // the Result tooltip shows the code, and says whether it runs (the setting)
    expect(row('completed')).toContain(
      'title="Insert and run: import mcp_jupyter as mj\nmj.get_connection(&quot;ev&quot;)'
    );
    expect(render([task('completed')], false)).toContain(
      'title="Insert: import mcp_jupyter as mj'
    );
  });

  it('shows server text as text and offers nothing on a task the server forgot', () => {
    const html = render([
      task('working', {
        tool: '<img src=x onerror=alert(1)>',
        message: '<b>hi</b>',
        arguments: "x='<i>'",
        gone: true
      })
    ]);
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('x=&#x27;&lt;i&gt;&#x27;');
    expect(html).not.toContain('<i>');
    expect(html).toContain('&lt;b&gt;hi&lt;/b&gt;');
    expect(html).not.toContain('<b>');
    expect(html).not.toContain('mcpj-task-cancel"');
    expect(html).toContain(
      'title="The server no longer knows this task: its last known status"'
    );
  });
});

describe('task times and messages', () => {
  it('formats elapsed times', () => {
    expect(formatElapsed(0)).toBe('0 s');
    expect(formatElapsed(59.9)).toBe('59 s');
    expect(formatElapsed(125)).toBe('2 min 5 s');
    expect(formatElapsed(3 * 3600 + 12 * 60 + 7)).toBe('3 h 12 min');
    expect(
      elapsedSeconds(task('working', { created: null }), START)
    ).toBeNull();
    expect(
      taskViews([task('working', { created: 'garbage' })], START)[0].elapsed
    ).toBe('');
  });

  it('parses tasks in snapshots and task.error', () => {
    const snapshot = parseSnapshot({
      connections: [
        {
          name: 'ev',
          tasks: [
            { id: 7, tool: 't', status: 'working' },
            { id: 8, tool: 't', arguments: 'n=3', status: 'completed' },
            { id: 9, tool: 't', arguments: { n: 3 } },
            'junk',
            { tool: 'no id' }
          ]
        }
      ]
    });
    const plain = {
      tool: 't',
      arguments: '',
      message: null,
      created: null,
      updated: null,
      gone: false
    };
    expect(snapshot.connections[0].tasks).toEqual([
      { ...plain, id: '7', status: 'working' },
      { ...plain, id: '8', arguments: 'n=3', status: 'completed' },
      { ...plain, id: '9', status: 'working' } // only a string is shown as arguments
    ]);
    expect(
      parseSnapshot({ connections: [{ name: 'old kernel' }] }).connections[0]
        .tasks
    ).toEqual([]);
    expect(
      parseKernelMessage({
        type: 'task.error',
        connection: 'ev',
        id: 'x',
        message: 'gone'
      })
    ).toEqual({
      type: 'task.error',
      connection: 'ev',
      id: 'x',
      message: 'gone'
    });
    expect(parseKernelMessage({ type: 'task.error' })).toBeNull();
  });
});
