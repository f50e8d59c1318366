import { describe, expect, it } from 'vitest';
import { mapStrings, runnerPathHider } from '../../src/action/runner-paths.js';

describe('runner paths told relative to the workspace (comment and summary)', () => {
  const hide = runnerPathHider({ GITHUB_WORKSPACE: '/home/runner/work/shop/shop', RUNNER_TEMP: '/home/runner/work/_temp', RUNNER_TOOL_CACHE: '/opt/hostedtoolcache' });

  it('workspace paths become repository-relative, the runner temp and tool cache named by their variable', () => {
    expect(hide("Input 'config': \"x.yml\" not found (looked for /home/runner/work/shop/shop/analytics/x.yml).")).toBe("Input 'config': \"x.yml\" not found (looked for analytics/x.yml).");
    expect(hide('report at /home/runner/work/_temp/replaygate/gate-replaygate.yml/report.json')).toBe('report at $RUNNER_TEMP/replaygate/gate-replaygate.yml/report.json');
    expect(hide('the workspace /home/runner/work/shop/shop is empty; not in /home/runner/work/shop/shop.')).toBe('the workspace $GITHUB_WORKSPACE is empty; not in $GITHUB_WORKSPACE.');
    expect(hide('/home/runner/work/shop/shop.bak')).toBe('/home/runner/work/shop/shop.bak');
    expect(hide('node at /opt/hostedtoolcache/node/24/x64')).toBe('node at $RUNNER_TOOL_CACHE/node/24/x64');
  });

  it('leaves look-alike paths and other text alone; maps every string of a view', () => {
    expect(hide('/home/runner/work/shop/shop2/a.yml and /etc/passwd')).toBe('/home/runner/work/shop/shop2/a.yml and /etc/passwd');
    expect(mapStrings({ notes: ['at /home/runner/work/shop/shop/golden/a.yml:3'], n: 3 }, hide)).toEqual({ notes: ['at golden/a.yml:3'], n: 3 });
    expect(runnerPathHider({})('/any/path')).toBe('/any/path');
  });
});
