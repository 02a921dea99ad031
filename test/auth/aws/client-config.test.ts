import { describe, expect, it } from 'vitest';
import { applyClientConfig, checkStsEndpoint } from '../../../lib/auth/aws/client-config';

describe('applyClientConfig', () => {
  it('starts from the defaults and changes only what is given', () => {
    const first = applyClientConfig(undefined, { iamServerIdHeaderValue: 'vault.example.com' });
    expect(first).toEqual({
      stsEndpoint: 'https://sts.amazonaws.com',
      stsRegion: 'us-east-1',
      iamServerIdHeaderValue: 'vault.example.com',
    });
    const second = applyClientConfig(first, { stsEndpoint: 'https://sts.eu-west-1.amazonaws.com/', stsRegion: 'eu-west-1' });
    expect(second).toEqual({
      stsEndpoint: 'https://sts.eu-west-1.amazonaws.com',
      stsRegion: 'eu-west-1',
      iamServerIdHeaderValue: 'vault.example.com',
    });
    expect(applyClientConfig(second, { stsEndpoint: '', stsRegion: '', iamServerIdHeaderValue: '' })).toEqual({
      stsEndpoint: 'https://sts.amazonaws.com',
      stsRegion: 'us-east-1',
      iamServerIdHeaderValue: '',
    });
  });

  it('refuses a region that is not one and a header value with control characters', () => {
    expect(() => applyClientConfig(undefined, { stsRegion: 'us_east_1' })).toThrow(/sts_region/);
    expect(() => applyClientConfig(undefined, { iamServerIdHeaderValue: 'a\r\nb' })).toThrow(/printable ASCII/);
  });
});

describe('checkStsEndpoint', () => {
  it('keeps the origin of a bare http(s) URL', () => {
    expect(checkStsEndpoint('http://127.0.0.1:4566')).toBe('http://127.0.0.1:4566');
    expect(checkStsEndpoint('https://sts.us-gov-west-1.amazonaws.com/')).toBe('https://sts.us-gov-west-1.amazonaws.com');
  });

  it('refuses paths, queries, fragments, credentials and other schemes', () => {
    for (const url of [
      'https://sts.amazonaws.com/x',
      'https://sts.amazonaws.com?a=1',
      'https://sts.amazonaws.com#f',
      'https://a:b@sts.amazonaws.com',
      'gopher://x',
      'x',
    ]) {
      expect(() => checkStsEndpoint(url), url).toThrow();
    }
  });
});
