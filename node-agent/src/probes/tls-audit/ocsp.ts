import { AsnConvert } from '@peculiar/asn1-schema';
import { BasicOCSPResponse, OCSPResponse, OCSPResponseStatus } from '@peculiar/asn1-ocsp';

/*
 * The status a server staples for its certificate (TLS Certificate Status Request, RFC 6066
 * section 8; OCSP response, RFC 6960 section 4.2).
 */

/** `good`, `revoked` or `unknown` as the stapled response says for the leaf; `none` when nothing was stapled. */
export type OcspStatus = 'good' | 'revoked' | 'unknown' | 'none';

/**
 * The leaf's status in a stapled OCSP response: the SingleResponse whose serial number is the
 * leaf's (`serial_hex`, upper-case hex), else the first. A response that is not `successful` or
 * does not parse counts as `unknown`. The responder's signature is not verified.
 */
export function stapledStatus(der: Buffer | null | undefined, serial_hex: string): OcspStatus {
  if (!der || der.length === 0) return 'none';
  try {
    const res = AsnConvert.parse(der, OCSPResponse);
    if (res.responseStatus !== OCSPResponseStatus.successful || !res.responseBytes) return 'unknown';
    const basic = AsnConvert.parse(res.responseBytes.response.buffer, BasicOCSPResponse);
    const want = serial_hex.replace(/^0+/, '');
    const single = basic.tbsResponseData.responses.find((r) => Buffer.from(r.certID.serialNumber).toString('hex').toUpperCase().replace(/^0+/, '') === want)
      ?? basic.tbsResponseData.responses[0];
    if (!single) return 'unknown';
    if (single.certStatus.good !== undefined) return 'good';
    if (single.certStatus.revoked !== undefined) return 'revoked';
    return 'unknown';
  } catch {
    return 'unknown';
  }
}
