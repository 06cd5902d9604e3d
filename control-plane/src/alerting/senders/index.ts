import type { MailTransport } from '../../email/transport.js';
import type { Sender } from '../../delivery/sender.js';
import { discordFormat } from './discord.js';
import { dingtalkFormat } from './dingtalk.js';
import { createChannelLoader } from './channel-loader.js';
import { createAlertEmailSender, type AlertEmailSenderDeps } from './email.js';
import { feishuFormat } from './feishu.js';
import { createHttpChannelSender, type AlertSenderDeps } from './http-channel.js';
import { pagerdutyFormat } from './pagerduty.js';
import { slackFormat } from './slack.js';
import { smsFormat } from './sms.js';
import { telegramFormat } from './telegram.js';
import { webhookFormat } from './webhook.js';
import { wechatFormat } from './wechat.js';
import { wecomFormat } from './wecom.js';

/**
 * One delivery-engine sender per alert channel type (`alert.email`, `alert.slack`…), for the
 * delivery engine's sender registry (outbound.ts). `transport` is the SMTP transport, null
 * without one (alert e-mails then fail at once with that reason); `config` also gives the e-mail
 * sender its session key and public URL (unsubscribe links). The senders share one channel
 * loader: the sends a claim starts together read their channels in one query.
 */
export function createAlertSenders(base: AlertSenderDeps & { transport: MailTransport | null; config: AlertEmailSenderDeps['config'] }): Sender[] {
  const deps = { ...base, channels: base.channels ?? createChannelLoader(base.sql) };
  return [
    createAlertEmailSender(deps),
    createHttpChannelSender(webhookFormat, deps),
    createHttpChannelSender(slackFormat, deps),
    createHttpChannelSender(discordFormat, deps),
    createHttpChannelSender(telegramFormat, deps),
    createHttpChannelSender(wecomFormat, deps),
    createHttpChannelSender(dingtalkFormat, deps),
    createHttpChannelSender(feishuFormat, deps),
    createHttpChannelSender(wechatFormat, deps),
    createHttpChannelSender(smsFormat, deps),
    createHttpChannelSender(pagerdutyFormat, deps),
  ];
}
