/**
 * One waiting consent request in the sidebar's inbox; its answer goes to the kernel on the channel.
 */
import React, { useEffect, useState } from 'react';

import { AnswerAction, IInboxItem, KernelMessage } from '../messages';
import { IMcpChannel } from '../tokens';
import { clip, inboxLabel, LIMITS } from '../view';
import { ElicitationForm } from './ElicitationForm';
import { RootsRequest } from './RootsRequest';
import { SamplingReview } from './SamplingReview';
import { useTrans } from './translation';

/** The request's title, its form or review, and what happened to the answer. */
export function InboxItem(props: {
  item: IInboxItem;
  channel: IMcpChannel;
}): JSX.Element {
  const trans = useTrans();
  const { item, channel } = props;
  const [sent, setSent] = useState<AnswerAction | ''>('');
  const [refused, setRefused] = useState('');
  // the kernel validates an answer as the in-cell card does; a refusal re-enables the form
  useEffect(() => {
    const onMessage = (_: IMcpChannel, msg: KernelMessage): void => {
      if (msg.type === 'answer.error' && msg.id === item.id) {
        const reasons = msg.errors.map(e =>
          [e.path?.join('.'), e.message].filter(Boolean).join(': ')
        );
        setRefused(reasons.join('; ') || trans.__('refused'));
        setSent('');
      }
    };
    channel.messageReceived.connect(onMessage);
    return () => void channel.messageReceived.disconnect(onMessage);
  }, [channel, item.id, trans]);
  const answer = (
    action: AnswerAction,
    content?: Record<string, unknown>
  ): void => {
    if (
      channel.send({
        type: 'answer',
        id: item.id,
        action,
        ...(content ? { content } : {})
      })
    ) {
      setSent(action);
      setRefused('');
    }
  };
  const message =
    item.kind === 'elicitation' ? item.payload?.message : undefined;
  const sentLabel = {
    accept: trans.__('accept'),
    decline: trans.__('decline'),
    cancel: trans.__('cancel')
  };
  return (
    <div
      className={`mcpj-inbox-item mcpj-inbox-kind-${item.kind}`}
      data-id={item.id}
    >
      <div className="mcpj-inbox-title">{inboxLabel(item, trans)}</div>
      {item.title && item.title !== message && (
        <div className="mcpj-inbox-subtitle">
          {clip(item.title, LIMITS.description)}
        </div>
      )}
      {item.kind === 'elicitation' && (
        <ElicitationForm item={item} answer={answer} disabled={!!sent} />
      )}
      {item.kind === 'sampling' && (
        <SamplingReview item={item} answer={answer} disabled={!!sent} />
      )}
      {item.kind === 'roots' && (
        <RootsRequest item={item} answer={answer} disabled={!!sent} />
      )}
      {refused && (
        <div className="mcpj-error mcpj-inbox-refused">
          {trans.__('The kernel refused the answer: %1', refused)}
        </div>
      )}
      {sent && (
        <div className="mcpj-detail mcpj-inbox-sent">
          {trans.__('Sent: %1', sentLabel[sent])}
        </div>
      )}
    </div>
  );
}
