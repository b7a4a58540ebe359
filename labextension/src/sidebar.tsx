/**
 * The "MCP" sidebar: the active notebook kernel's connections, configured servers, and the inbox of
 * consent requests. Rendering only: state comes from the kernel's snapshots (see view.ts), and every
 * action either writes a code cell (see codegen.ts) or answers a request on the channel.
 */
import { ReactWidget } from '@jupyterlab/ui-components';
import React, { useEffect, useState } from 'react';

import { AppOnlyBadge } from './badges';
import * as codegen from './codegen';
import { collect, formModel, IFieldModel, initialValues, RawValue } from './form';
import { IInboxItem, IMcpChannel, ISnapshot } from './tokens';
import {
  clip,
  connectionsView,
  IConnectionView,
  inboxLabel,
  ISectionView,
  LIMITS,
  samplingMessages
} from './view';

/** What the sidebar needs from the plugin. */
export interface ISidebarHost {
  /** The channel of the active notebook's kernel (null: no notebook or no kernel). */
  channel(): IMcpChannel | null;
  /** A label for the active notebook ("" when there is none). */
  notebookName(): string;
  /** Insert a code cell below the active cell of the active notebook and run it. */
  runCode(code: string): Promise<void>;
}

/** The sidebar widget; call `update()` when the host's state changes. */
export class McpSidebar extends ReactWidget {
  constructor(private readonly _host: ISidebarHost) {
    super();
    this.addClass('mcpj-sidebar');
  }

  protected render(): JSX.Element {
    const channel = this._host.channel();
    return (
      <SidebarView
        name={this._host.notebookName()}
        channel={channel}
        snapshot={channel?.snapshot ?? null}
        open={channel?.isOpen ?? false}
        runCode={code => void this._host.runCode(code)}
      />
    );
  }
}

interface IViewProps {
  name: string;
  channel: IMcpChannel | null;
  snapshot: ISnapshot | null;
  open: boolean;
  runCode: (code: string) => void;
}

function SidebarView(props: IViewProps): JSX.Element {
  const [filter, setFilter] = useState('');
  const { snapshot, channel } = props;
  const header = (
    <div className="mcpj-sidebar-header">
      <h2>MCP</h2>
      {props.name && <span className="mcpj-sidebar-notebook">{props.name}</span>}
      {props.open && (
        <button className="mcpj-button mcpj-refresh" title="Ask the kernel for a fresh snapshot"
          onClick={() => channel?.send({ type: 'refresh' })}>
          Refresh
        </button>
      )}
    </div>
  );
  if (!channel) {
    return <>{header}<p className="mcpj-sidebar-status">Open a notebook to see its kernel's MCP connections.</p></>;
  }
  if (!props.open || !snapshot) {
    return (
      <>
        {header}
        <p className="mcpj-sidebar-status">
          This kernel has not loaded mcp_jupyter yet. Import it and the sidebar connects by itself.
        </p>
        <button className="mcpj-button mcpj-insert-import"
          onClick={() => props.runCode('import mcp_jupyter as mj\n%load_ext mcp_jupyter')}>
          Insert import
        </button>
      </>
    );
  }
  const options = { magics: snapshot.magics };
  const connections = connectionsView(snapshot, filter);
  return (
    <>
      {header}
      <Inbox items={snapshot.inbox} channel={channel} />
      <div className="mcpj-filter">
        <input type="search" placeholder="Filter tools, resources, prompts" aria-label="Filter"
          value={filter} onChange={e => setFilter(e.target.value)} />
      </div>
      <section className="mcpj-connections">
        <h3>Connections</h3>
        {snapshot.connections.length === 0 && (
          <p className="mcpj-sidebar-status">No connections yet: connect with mj.connect(...) or below.</p>
        )}
        {connections.map(view => (
          <Connection key={view.name} view={view} filtering={filter.trim() !== ''}
            run={props.runCode} options={options} />
        ))}
      </section>
      <section className="mcpj-configured">
        <h3>Configured servers</h3>
        {snapshot.configured.length === 0 && (
          <p className="mcpj-sidebar-status">No mcp.json, Claude Desktop, Cursor or VS Code servers found.</p>
        )}
        {snapshot.configured.map(server => (
          <div className="mcpj-configured-item" data-name={server.name} key={`${server.source}:${server.name}`}>
            <div className="mcpj-row">
              <span className="mcpj-name">{server.name}</span>
              <span className="mcpj-tag">{server.transport}</span>
              {server.disabled && <span className="mcpj-tag" title="disabled in its config file">disabled</span>}
              <button className="mcpj-button mcpj-configured-connect" title="Insert and run %mcp connect"
                onClick={() => props.runCode(codegen.connectCode(server.name, server.source, options))}>
                Connect
              </button>
            </div>
            <div className="mcpj-detail">{clip(server.target, LIMITS.detail)}</div>
            <div className="mcpj-detail mcpj-source">{clip(server.source, LIMITS.detail)}</div>
          </div>
        ))}
      </section>
    </>
  );
}

function Connection(props: {
  view: IConnectionView;
  filtering: boolean;
  run: (code: string) => void;
  options: codegen.ICodeOptions;
}): JSX.Element {
  const { view } = props;
  const [open, setOpen] = useState(true);
  return (
    <div className="mcpj-connection" data-name={view.name} data-status={view.status}>
      <div className="mcpj-row mcpj-connection-header">
        <button className="mcpj-toggle" aria-expanded={open} onClick={() => setOpen(!open)}
          title={open ? 'Collapse' : 'Expand'}>
          {open ? '▾' : '▸'}
        </button>
        <span className={`mcpj-dot mcpj-dot-${view.status}`} title={view.status} />
        <span className="mcpj-name">{view.name}</span>
        <span className="mcpj-tag">{view.transport}</span>
        <span className="mcpj-status">{view.status}</span>
        <button className="mcpj-button mcpj-connection-explore" title="Insert and run %mcp explore"
          onClick={() => props.run(codegen.exploreCode(view.name, props.options))}>
          Explore
        </button>
      </div>
      {open && (
        <div className="mcpj-connection-body">
          <div className="mcpj-detail mcpj-connection-server">
            {view.server}{view.protocol && ` · protocol ${view.protocol}`}
          </div>
          <div className="mcpj-detail mcpj-connection-counts">{view.counts}</div>
          {view.error && <div className="mcpj-error">{view.error}</div>}
          {view.sections.map(section => (
            <Section key={section.kind} connection={view.name} section={section}
              filtering={props.filtering} run={props.run} options={props.options} />
          ))}
        </div>
      )}
    </div>
  );
}

const ACTION_LABEL = { call: 'Call', read: 'Read', prompt: 'Prompt' };

function Section(props: {
  connection: string;
  section: ISectionView;
  filtering: boolean;
  run: (code: string) => void;
  options: codegen.ICodeOptions;
}): JSX.Element | null {
  const { section, connection } = props;
  const [open, setOpen] = useState(false);
  if (section.total === 0) {
    return null;
  }
  const shown = open || (props.filtering && section.items.length > 0);
  const code = (item: ISectionView['items'][number]): string => {
    switch (item.action) {
      case 'call':
        return codegen.callCode(connection, item.key, props.options);
      case 'read':
        return codegen.readCode(connection, item.key);
      default:
        return codegen.promptCode(connection, item.key, item.args, props.options);
    }
  };
  return (
    <div className="mcpj-section" data-kind={section.kind}>
      <button className="mcpj-section-header" aria-expanded={shown} onClick={() => setOpen(!shown)}>
        {shown ? '▾' : '▸'} {section.label}{' '}
        <span className="mcpj-count">
          {props.filtering ? `${section.items.length}/${section.total}` : section.total}
        </span>
      </button>
      {shown && (
        <ul className="mcpj-items">
          {section.items.map(item => (
            <li className="mcpj-item" data-key={item.key} key={item.key}>
              <div className="mcpj-row">
                <span className="mcpj-item-label" title={clip(item.key, LIMITS.detail)}>{item.label}</span>
                <AppOnlyBadge item={item} />
                {item.action && (
                  <button className="mcpj-button mcpj-item-action" data-action={item.action}
                    title={clip(`Insert and run: ${code(item)}`, LIMITS.detail)} onClick={() => props.run(code(item))}>
                    {ACTION_LABEL[item.action]}
                  </button>
                )}
              </div>
              {item.detail && <div className="mcpj-detail">{item.detail}</div>}
              {item.description && <div className="mcpj-description">{item.description}</div>}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function Inbox(props: { items: IInboxItem[]; channel: IMcpChannel }): JSX.Element | null {
  if (!props.items.length) {
    return null;
  }
  return (
    <section className="mcpj-inbox">
      <h3>Waiting for you <span className="mcpj-count">{props.items.length}</span></h3>
      {props.items.map(item => (
        // keyed by state too: a sampling request comes back in "review" with the model's draft
        <InboxItem key={`${item.id}:${item.payload?.state ?? ''}`} item={item} channel={props.channel} />
      ))}
    </section>
  );
}

function InboxItem(props: { item: IInboxItem; channel: IMcpChannel }): JSX.Element {
  const { item, channel } = props;
  const [sent, setSent] = useState('');
  const [refused, setRefused] = useState('');
  // the kernel validates an answer as the in-cell card does; a refusal re-enables the form
  useEffect(() => {
    const onMessage = (_: IMcpChannel, msg: any): void => {
      if (msg?.type === 'answer.error' && msg.id === item.id) {
        const errors = Array.isArray(msg.errors) ? msg.errors : [];
        setRefused(errors.map((e: any) => [e?.path, e?.message].filter(Boolean).join(': ')).join('; ') || 'refused');
        setSent('');
      }
    };
    channel.messageReceived.connect(onMessage);
    return () => void channel.messageReceived.disconnect(onMessage);
  }, [channel, item.id]);
  const answer = (action: 'accept' | 'decline' | 'cancel', content?: Record<string, unknown>): void => {
    if (channel.send({ type: 'answer', id: item.id, action, ...(content ? { content } : {}) })) {
      setSent(action);
      setRefused('');
    }
  };
  return (
    <div className={`mcpj-inbox-item mcpj-inbox-kind-${item.kind}`} data-id={item.id}>
      <div className="mcpj-inbox-title">{inboxLabel(item)}</div>
      {item.title && item.title !== item.payload?.message && (
        <div className="mcpj-inbox-subtitle">{clip(item.title, LIMITS.description)}</div>
      )}
      {item.kind === 'elicitation' && <ElicitationForm item={item} answer={answer} disabled={!!sent} />}
      {item.kind === 'sampling' && <SamplingReview item={item} answer={answer} disabled={!!sent} />}
      {item.kind === 'roots' && (
        <>
          <ul className="mcpj-roots">
            {(Array.isArray(item.payload?.roots) ? item.payload.roots : []).map((root: any, i: number) => (
              <li key={i} className="mcpj-detail">
                {root?.name ? `${root.name}: ` : ''}{String(root?.uri ?? '')}
              </li>
            ))}
          </ul>
          <Buttons answer={action => answer(action)} disabled={!!sent} accept="Share" />
        </>
      )}
      {refused && <div className="mcpj-error mcpj-inbox-refused">The kernel refused the answer: {refused}</div>}
      {sent && <div className="mcpj-detail mcpj-inbox-sent">Sent: {sent}</div>}
    </div>
  );
}

function Buttons(props: {
  answer: (action: 'accept' | 'decline' | 'cancel') => void;
  disabled: boolean;
  accept: string;
  /** Only the accept button is off (a sampling request while the model answers). */
  acceptDisabled?: boolean;
}): JSX.Element {
  return (
    <div className="mcpj-row mcpj-inbox-buttons">
      <button type="submit" className="mcpj-button mcpj-accept mcpj-inbox-accept"
        disabled={props.disabled || props.acceptDisabled}
        onClick={e => { e.preventDefault(); props.answer('accept'); }}>
        {props.accept}
      </button>
      <button type="button" className="mcpj-button mcpj-inbox-decline" disabled={props.disabled}
        onClick={() => props.answer('decline')}>
        Decline
      </button>
      <button type="button" className="mcpj-button mcpj-inbox-cancel" disabled={props.disabled}
        onClick={() => props.answer('cancel')}>
        Cancel
      </button>
    </div>
  );
}

function ElicitationForm(props: {
  item: IInboxItem;
  answer: (action: 'accept' | 'decline' | 'cancel', content?: Record<string, unknown>) => void;
  disabled: boolean;
}): JSX.Element {
  const payload = props.item.payload ?? {};
  const [fields] = useState<IFieldModel[]>(() => formModel(payload.requested_schema));
  const [values, setValues] = useState<Record<string, RawValue>>(() => initialValues(fields));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const set = (key: string, value: RawValue): void => setValues(v => ({ ...v, [key]: value }));
  const submit = (action: 'accept' | 'decline' | 'cancel'): void => {
    if (action !== 'accept') {
      props.answer(action);
      return;
    }
    const result = collect(fields, values);
    setErrors(result.errors);
    if (Object.keys(result.errors).length === 0) {
      props.answer('accept', result.content);
    }
  };
  return (
    <form className="mcpj-inbox-form" onSubmit={e => { e.preventDefault(); submit('accept'); }}>
      {payload.message && <p className="mcpj-inbox-message">{clip(payload.message, LIMITS.message)}</p>}
      {payload.asks_for_secret && (
        <p className="mcpj-error">This looks like a request for a password or key: servers should not ask for secrets.</p>
      )}
      {payload.mode === 'url' && payload.url && <UrlRequest url={String(payload.url)} />}
      {fields.map(field => (
        <label className="mcpj-inbox-field" data-key={field.key} key={field.key}>
          <span className="mcpj-field-label">{field.label}{field.required ? ' *' : ''}</span>
          <FieldInput field={field} value={values[field.key]} set={v => set(field.key, v)} disabled={props.disabled} />
          {field.description && <span className="mcpj-description">{field.description}</span>}
          {errors[field.key] && <span className="mcpj-error">{errors[field.key]}</span>}
        </label>
      ))}
      <Buttons answer={submit} disabled={props.disabled} accept="Accept" />
    </form>
  );
}

/** URL-mode elicitation: the whole URL and its host; only https opens (in a new, unlinked tab). */
function UrlRequest(props: { url: string }): JSX.Element {
  let parsed: URL | null = null;
  try {
    parsed = new URL(props.url);
  } catch {
    parsed = null;
  }
  const https = parsed?.protocol === 'https:';
  return (
    <div className="mcpj-inbox-url">
      <div className="mcpj-detail">Opens <strong>{parsed?.host ?? 'an invalid URL'}</strong>:</div>
      <pre>{clip(props.url, LIMITS.message)}</pre>
      {https ? (
        <button type="button" className="mcpj-button mcpj-inbox-open"
          onClick={() => window.open(props.url, '_blank', 'noopener,noreferrer')}>
          Open in a new tab
        </button>
      ) : (
        <div className="mcpj-error">Only https URLs are opened.</div>
      )}
    </div>
  );
}

function FieldInput(props: {
  field: IFieldModel;
  value: RawValue;
  set: (value: RawValue) => void;
  disabled: boolean;
}): JSX.Element {
  const { field, value, set, disabled } = props;
  switch (field.kind) {
    case 'boolean':
      return <input type="checkbox" checked={value === true} disabled={disabled}
        onChange={e => set(e.target.checked)} />;
    case 'enum':
      return (
        <select value={String(value)} disabled={disabled} onChange={e => set(e.target.value)}>
          {!field.required || value === '' ? <option value="">—</option> : null}
          {field.options.map((o, i) => <option key={i} value={String(i)}>{o.label}</option>)}
        </select>
      );
    case 'multi': {
      const picked = Array.isArray(value) ? value : [];
      return (
        <span className="mcpj-multi">
          {field.options.map((o, i) => (
            <label key={i}>
              <input type="checkbox" checked={picked.includes(i)} disabled={disabled}
                onChange={e => set(e.target.checked ? [...picked, i] : picked.filter(p => p !== i))} />
              {o.label}
            </label>
          ))}
        </span>
      );
    }
    default: {
      const type = field.kind === 'number' || field.kind === 'integer' ? 'text' : inputType(field.format);
      return <input type={type} value={String(value ?? '')} disabled={disabled}
        inputMode={field.kind === 'integer' ? 'numeric' : field.kind === 'number' ? 'decimal' : undefined}
        onChange={e => set(e.target.value)} />;
    }
  }
}

function inputType(format: string | undefined): string {
  return { email: 'email', uri: 'url', date: 'date' }[format ?? ''] ?? 'text';
}

/**
 * A sampling request: read the messages, then Approve (the kernel asks the model). The request then
 * comes back in state "review" with the model's draft: Send it. With the human provider
 * (`needs_human`) the person writes the reply.
 */
function SamplingReview(props: {
  item: IInboxItem;
  answer: (action: 'accept' | 'decline' | 'cancel', content?: Record<string, unknown>) => void;
  disabled: boolean;
}): JSX.Element {
  const payload = props.item.payload ?? {};
  const [reply, setReply] = useState('');
  const review = payload.state === 'review' && payload.draft;
  const generating = payload.state === 'generating';
  const human = payload.needs_human && !review;
  const accept = (action: 'accept' | 'decline' | 'cancel'): void =>
    action === 'accept' && human ? props.answer(action, { text: reply }) : props.answer(action);
  return (
    <div className="mcpj-sampling">
      {payload.system_prompt && (
        <div className="mcpj-sampling-message" data-role="system">
          <span className="mcpj-field-label">system</span>
          <pre>{clip(payload.system_prompt, LIMITS.message)}</pre>
        </div>
      )}
      {samplingMessages(payload).map((m, i) => (
        <div className="mcpj-sampling-message" data-role={m.role} key={i}>
          <span className="mcpj-field-label">{m.role}</span>
          <pre>{m.text}</pre>
        </div>
      ))}
      {payload.max_tokens && <div className="mcpj-detail">at most {String(payload.max_tokens)} tokens</div>}
      {payload.error && <div className="mcpj-error">{String(payload.error)}</div>}
      {review && (
        <div className="mcpj-sampling-draft">
          <span className="mcpj-field-label">answer from {String(payload.draft.model ?? 'the model')}</span>
          <pre>{clip(payload.draft.text, LIMITS.message)}</pre>
        </div>
      )}
      {human && (
        <label className="mcpj-inbox-field" data-key="reply">
          <span className="mcpj-field-label">Your reply</span>
          <textarea value={reply} disabled={props.disabled} onChange={e => setReply(e.target.value)} />
        </label>
      )}
      {generating && <div className="mcpj-detail mcpj-sampling-generating">The model is answering…</div>}
      <Buttons answer={accept} disabled={props.disabled} acceptDisabled={generating}
        accept={review ? 'Send' : human ? 'Reply' : 'Approve'} />
    </div>
  );
}
