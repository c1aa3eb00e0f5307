/**
 * AWS Signature V4 for Bedrock requests (service `bedrock`, the provider's region), with the
 * maintained `@smithy/signature-v4` signer the AWS SDKs use: the method, path, query, headers and
 * a SHA-256 of the body are signed, and the signature headers (`authorization`, `x-amz-date`,
 * `x-amz-content-sha256`, `x-amz-security-token`) are added to the request as built. The host is
 * signed as undici will send it (the URL's host and port). One signer per provider.
 * @module
 */
import { Hash } from '@smithy/hash-node';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentials, ProviderInfo } from '../../catalog/types';
import { DEFAULT_BEDROCK_REGION } from './api';
import type { UpstreamRequest } from '../../transport/outcome';

const signers = new WeakMap<ProviderInfo, SignatureV4>();

function signerFor(provider: ProviderInfo, aws: AwsCredentials): SignatureV4 {
  let signer = signers.get(provider);
  if (!signer) {
    signer = new SignatureV4({
      service: 'bedrock',
      region: provider.region ?? DEFAULT_BEDROCK_REGION,
      credentials: {
        accessKeyId: aws.accessKeyId,
        secretAccessKey: aws.secretAccessKey,
        ...(aws.sessionToken ? { sessionToken: aws.sessionToken } : {}),
      },
      sha256: Hash.bind(null, 'sha256'),
    });
    signers.set(provider, signer);
  }
  return signer;
}

/** Sign `req` in place with the provider's AWS credentials; `now` is the signing time. */
export async function signRequest(
  req: UpstreamRequest,
  provider: ProviderInfo,
  aws: AwsCredentials,
  now = new Date(),
): Promise<void> {
  const url = new URL(req.url);
  const query: Record<string, string> = {};
  for (const [k, v] of url.searchParams) query[k] = v;
  const signed = await signerFor(provider, aws).sign(
    new HttpRequest({
      method: 'POST',
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port ? { port: Number(url.port) } : {}),
      path: url.pathname,
      query,
      headers: { ...req.headers, host: url.host },
      body: req.body,
    }),
    { signingDate: now },
  );
  for (const [name, value] of Object.entries(signed.headers)) if (name !== 'host') req.headers[name] = value;
}
