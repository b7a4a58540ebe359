/**
 * A sampling request: read the system prompt and the messages, then Approve (the kernel asks the
 * model). The request then comes back in state "review" with the model's draft: Send it. With the
 * human provider (`needs_human`) the person answers for the model: in text, or, when the request
 * offers tools, with a call of one of them (its arguments in a form from the tool's input schema).
 */
import React, { useState } from 'react';

import {
  collect,
  formModel,
  IFieldModel,
  initialValues,
  RawValue
} from '../form';
import {
  AnswerAction,
  ISamplingItem,
  ISamplingPayload,
  ISamplingTool
} from '../messages';
import {
  clip,
  draftToolCalls,
  LIMITS,
  samplingMessages,
  samplingTools
} from '../view';
import { AnswerButtons } from './AnswerButtons';
import { SchemaFields } from './SchemaFields';
import { useTrans } from './translation';

/** At most this many offered tools can be called from the sidebar (each is a form). */
const CALLABLE_TOOLS = 20;

/** The tools a person answering for the model may call (none when `tool_choice` is "none"). */
export function callableTools(payload: ISamplingPayload): ISamplingTool[] {
  const tools = Array.isArray(payload.tools) ? payload.tools : [];
  return payload.tool_choice === 'none'
    ? []
    : tools
        .filter(t => t && typeof t.name === 'string')
        .slice(0, CALLABLE_TOOLS);
}

/** The messages, the tools, what to do, the reply or the draft, and the answer buttons. */
export function SamplingReview(props: {
  item: ISamplingItem;
  answer: (action: AnswerAction, content?: Record<string, unknown>) => void;
  disabled: boolean;
}): JSX.Element {
  const trans = useTrans();
  const payload = props.item.payload ?? {};
  const [reply, setReply] = useState('');
  // '' answers in text; otherwise the name of the offered tool the person calls
  const [choice, setChoice] = useState('');
  const [forms, setForms] = useState<
    Record<string, { fields: IFieldModel[]; values: Record<string, RawValue> }>
  >({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const draft = payload.state === 'review' ? payload.draft : null;
  const generating = payload.state === 'generating';
  const human = !!payload.needs_human && !draft;
  const callable = human ? callableTools(payload) : [];
  const tool = callable.find(t => t.name === choice);
  const form = tool ? forms[tool.name] : undefined;

  const pick = (name: string): void => {
    setChoice(name);
    setErrors({});
    const picked = callable.find(t => t.name === name);
    if (picked && !forms[name]) {
      const fields = formModel(picked.input_schema);
      setForms(f => ({
        ...f,
        [name]: { fields, values: initialValues(fields) }
      }));
    }
  };
  const setValue = (key: string, value: RawValue): void => {
    if (tool) {
      setForms(f => ({
        ...f,
        [tool.name]: {
          ...f[tool.name],
          values: { ...f[tool.name].values, [key]: value }
        }
      }));
    }
  };
  const accept = (action: AnswerAction): void => {
    if (action !== 'accept' || !human) {
      props.answer(action);
      return;
    }
    if (!tool || !form) {
      props.answer(action, { text: reply });
      return;
    }
    const result = collect(form.fields, form.values, trans);
    setErrors(result.errors);
    if (Object.keys(result.errors).length === 0) {
      props.answer(action, {
        text: '',
        tool_calls: [{ name: tool.name, input: result.content }]
      });
    }
  };

  const instructions = draft
    ? trans.__('Review the answer, then Send it to the server (or Decline).')
    : human && callable.length
      ? trans.__(
          'Answer for the model: type a reply, or pick a tool and fill in its arguments (the server runs it), then Reply.'
        )
      : human
        ? trans.__(
            'Answer for the model: type the reply the server gets, then Reply.'
          )
        : trans.__('Read the request, then Approve to ask the model.');
  return (
    <div className="mcpj-sampling">
      {payload.system_prompt && (
        <div className="mcpj-sampling-message" data-role="system">
          <span className="mcpj-field-label">{trans.__('system prompt')}</span>
          <pre>{clip(payload.system_prompt, LIMITS.message)}</pre>
        </div>
      )}
      {samplingMessages(payload).map((m, i) => (
        <div className="mcpj-sampling-message" data-role={m.role} key={i}>
          <span className="mcpj-field-label">{m.role}</span>
          <pre>{m.text}</pre>
        </div>
      ))}
      {samplingTools(payload).length > 0 && (
        <div className="mcpj-sampling-tools">
          <span className="mcpj-field-label">
            {payload.tool_choice === 'required'
              ? trans.__(
                  'Tools offered to the model (it must call one; the server runs them)'
                )
              : payload.tool_choice === 'none'
                ? trans.__('Tools shown to the model (it may not call them)')
                : trans.__('Tools offered to the model (the server runs them)')}
          </span>
          <ul>
            {samplingTools(payload).map((t, i) => (
              <li key={i} data-tool={t.name}>
                <code>{t.name}</code>{' '}
                <span className="mcpj-detail">{t.detail}</span>
              </li>
            ))}
          </ul>
        </div>
      )}
      {payload.max_tokens ? (
        <div className="mcpj-detail">
          {trans.__('at most %1 tokens', String(payload.max_tokens))}
        </div>
      ) : null}
      {payload.error && (
        <div className="mcpj-error">{String(payload.error)}</div>
      )}
      {generating ? (
        <div className="mcpj-detail mcpj-sampling-generating">
          {trans.__('The model is answering…')}
        </div>
      ) : (
        <div className="mcpj-sampling-instructions">{instructions}</div>
      )}
      {draft && (
        <div className="mcpj-sampling-draft">
          <span className="mcpj-field-label">
            {trans.__(
              'answer from %1',
              String(draft.model ?? trans.__('the model'))
            )}
          </span>
          {draft.text && <pre>{clip(draft.text, LIMITS.message)}</pre>}
          {draftToolCalls(payload).map((c, i) => (
            <div className="mcpj-sampling-tool-call" data-tool={c.name} key={i}>
              {trans.__(
                'The model asks the server to run %1 with %2',
                c.name,
                c.detail
              )}
            </div>
          ))}
        </div>
      )}
      {human && callable.length > 0 && (
        <label className="mcpj-inbox-field" data-key="reply-kind">
          <span className="mcpj-field-label">{trans.__('Reply with')}</span>
          <select
            className="mcpj-sampling-reply-kind"
            value={choice}
            disabled={props.disabled}
            onChange={e => pick(e.target.value)}
          >
            <option value="">{trans.__('text')}</option>
            {callable.map(t => (
              <option key={t.name} value={t.name}>
                {trans.__('a call of %1', clip(t.name, LIMITS.label))}
              </option>
            ))}
          </select>
        </label>
      )}
      {human && !tool && (
        <label className="mcpj-inbox-field" data-key="reply">
          <span className="mcpj-field-label">{trans.__('Your reply')}</span>
          <textarea
            value={reply}
            disabled={props.disabled}
            onChange={e => setReply(e.target.value)}
          />
        </label>
      )}
      {tool && form && (
        <div className="mcpj-sampling-tool-form" data-tool={tool.name}>
          {tool.description && (
            <p className="mcpj-description">
              {clip(tool.description, LIMITS.description)}
            </p>
          )}
          <SchemaFields
            fields={form.fields}
            values={form.values}
            set={setValue}
            errors={errors}
            disabled={props.disabled}
            setError={(key, error) => setErrors(e => ({ ...e, [key]: error }))}
          />
        </div>
      )}
      <AnswerButtons
        answer={accept}
        disabled={props.disabled}
        acceptDisabled={generating}
        accept={
          draft
            ? trans.__('Send')
            : human
              ? trans.__('Reply')
              : trans.__('Approve')
        }
      />
    </div>
  );
}
