// DicomSource's URL path reads through signUrl: the manifest and each file are fetched from
// the URL the hook returns (here the same URL with a stand-in signature, which the file server
// ignores), signed once per object; errors name the unsigned URL.
import type { SignUrl } from '@medfusion/web';
import { DicomSource } from '@medfusion/web/dicom';
import { describe, expect, inject, it } from 'vitest';

const { files, filesUrl } = inject('dicom');

function signing(calls: string[]): SignUrl {
  return (url) => {
    calls.push(url);
    return `${url}?X-Amz-Signature=sig${calls.length}&X-Amz-Credential=AKIAEXAMPLE`;
  };
}

describe('DicomSource: signUrl', () => {
  it('signs the manifest and each file once, before their first read', async () => {
    const calls: string[] = [];
    const source = await DicomSource.open({
      manifestUrl: `${filesUrl}manifest.csv`,
      signUrl: signing(calls),
    });
    for (const i of [0, 3, 0]) expect((await source.get(i)).label).toBe(i % 2);
    expect(calls).toEqual([
      `${filesUrl}manifest.csv`,
      `${filesUrl}${files[0]?.file}`,
      `${filesUrl}${files[3]?.file}`,
    ]);
    expect(source.urlOf(0)).toBe(`${filesUrl}${files[0]?.file}`);
  });

  it('a failed read names the unsigned URL', async () => {
    const source = await DicomSource.open({
      urls: [`${filesUrl}no-such-file.dcm`],
      retry: { retries: 0 },
      signUrl: signing([]),
    });
    const error = await source.get(0).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'LOAD_FAILED', index: 0 });
    let text = '';
    for (let e: unknown = error; e instanceof Error; e = e.cause) text += `${e.message}\n`;
    expect(text).toContain(`${filesUrl}no-such-file.dcm`);
    expect(text).not.toMatch(/X-Amz|AKIAEXAMPLE|sig1/);
  });
});
