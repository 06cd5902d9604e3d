import t from 'tap';
import { ERROR_CODES, ERROR_STATUS } from '@vantage/shared-protocol';
import { MESSAGES, MESSAGE_LOCALES, localiseMessage, pickLocale } from './messages.js';

/**
 * Characters that exist only in simplified Chinese (their traditional forms in brackets are what
 * zh-TW writes): one in a `tw` message means it was not converted.
 * 们(們) 这(這) 为(為) 无(無) 证(證) 码(碼) 户(戶) 邮(郵) 过(過) 误(誤) 务(務) 访(訪) 问(問) 设(設) 请(請)
 * 录(錄) 验(驗) 账(帳) 错(錯) 间(間) 级(級) 节(節) 点(點) 时(時) 区(區) 语(語) 数(數) 与(與) 状(狀) 删(刪)
 * 团(團) 队(隊) 员(員) 称(稱) 报(報) 诊(診) 断(斷) 额(額) 费(費) 单(單) 发(發) 败(敗) 权(權) 钥(鑰) 销(銷)
 * 资(資) 频(頻) 凭(憑) 冲(衝) 达(達) 网(網) 络(絡) 关(關) 个(個) 对(對) 该(該) 应(應) 线(線) 离(離) 计(計)
 * 规(規) 则(則) 监(監) 测(測) 败(敗) 务(務) 内(內) 态(態) 绑(綁) 会(會) 话(話) 击(擊) 启(啟) 签(簽) 页(頁)
 */
const SIMPLIFIED_ONLY = /[们这为无证码户邮过误务访问设请录验账错间级节点时区语数与状删团队员称报诊断额费单发败权钥销资频凭冲达网络关个对该应线离计规则监测内态绑会话启签页]/u;
/** Traditional forms whose simplified counterparts differ: one in a `cn` message was not converted. */
const TRADITIONAL_ONLY = /[們這為無證碼戶郵過誤務訪問設請錄驗帳錯間級節點時區語數與狀刪團隊員稱報診斷額費單發敗權鑰銷資頻憑衝達網絡關個對該應線離計規則監測內態綁會話啟簽頁]/u;

t.test('every error code has a message in en, cn and tw', async (t) => {
  t.ok(ERROR_CODES.length >= 80, `${ERROR_CODES.length} codes`);
  for (const code of Object.keys(ERROR_STATUS)) {
    const m = (MESSAGES as Record<string, Record<string, string> | undefined>)[code];
    t.ok(m, `${code} has messages`);
    for (const locale of MESSAGE_LOCALES) {
      const text = m?.[locale] ?? '';
      t.ok(text.trim().length > 0 && text.length <= 80, `${code}.${locale} is a short message`);
    }
    if (!m) continue;
    t.match(m.en, /^[\x20-\x7e]+$/, `${code}.en is English (printable ASCII)`);
    t.match(m.cn, /\p{Script=Han}/u, `${code}.cn is Chinese`);
    t.match(m.tw, /\p{Script=Han}/u, `${code}.tw is Chinese`);
    t.notMatch(m.tw, SIMPLIFIED_ONLY, `${code}.tw has no simplified-only character (${m.tw})`);
    t.notMatch(m.cn, TRADITIONAL_ONLY, `${code}.cn has no traditional-only character (${m.cn})`);
    t.notMatch(m.en, /\.$/, `${code}.en is a fragment without a final stop`);
  }
  for (const code of Object.keys(MESSAGES)) t.ok(code in ERROR_STATUS, `${code} is a code (no stale entries)`);
});

t.test('pickLocale: RFC 9110 Accept-Language with q-values', async (t) => {
  const cases: Array<[string | undefined, string]> = [
    [undefined, 'en'], ['', 'en'], ['de', 'en'], ['en-GB', 'en'], ['zh', 'cn'], ['zh-CN', 'cn'], ['zh-Hans-CN', 'cn'], ['zh-SG', 'cn'],
    ['zh-TW', 'tw'], ['zh-HK', 'tw'], ['zh-MO', 'tw'], ['zh-Hant', 'tw'], ['zh-Hant-HK', 'tw'],
    ['fr, zh-TW;q=0.5, zh-CN;q=0.4', 'tw'], ['zh-CN;q=0.1, en;q=0.9', 'en'], ['en;q=0, zh', 'cn'], ['zh-CN;q=abc, <script>, en;q=2', 'cn'],
    ['de;q=1, zh-TW;q=0.8, en;q=0.8', 'tw'],
  ];
  for (const [header, locale] of cases) t.equal(pickLocale(header), locale, String(header));
});

t.test('localiseMessage: English keeps the route\'s detail, Chinese the code\'s message', async (t) => {
  t.equal(localiseMessage('MONITOR_NOT_FOUND', 'monitor m_1 not found', 'en'), 'monitor m_1 not found');
  t.equal(localiseMessage('MONITOR_NOT_FOUND', 'MONITOR_NOT_FOUND', 'en'), 'Monitor not found', 'no detail: the generic message');
  t.equal(localiseMessage('MONITOR_NOT_FOUND', '', 'en'), 'Monitor not found');
  t.equal(localiseMessage('MONITOR_NOT_FOUND', 'monitor m_1 not found', 'cn'), '监控不存在');
  t.equal(localiseMessage('MONITOR_NOT_FOUND', 'monitor m_1 not found', 'tw'), '監控不存在');
  t.equal(localiseMessage('NODE_OFFLINE', 'NODE_OFFLINE', 'tw'), '節點離線');
});
