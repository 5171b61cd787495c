import { createStore, Provider } from 'jotai';
import { createElement, type ReactElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { MemoryRouter } from 'react-router-dom';
import { describe, expect, it } from 'vitest';
import { FALLBACK_CONFIG, publicConfigAtom } from '../lib/public-config';
import { NeedHelp } from './need-help';
import { PageTitle } from './page-title';

function render(element: ReactElement, supportEmail = 'help@care.example'): string {
  const store = createStore();
  store.set(publicConfigAtom, { ...FALLBACK_CONFIG, supportEmail });
  return renderToStaticMarkup(createElement(Provider, { store }, createElement(MemoryRouter, null, element)));
}

describe('the parts several screens share', () => {
  it('shows a screen’s title, subtitle and Back to Home, with its own actions after the button', () => {
    const plain = render(createElement(PageTitle, { title: 'Admin Dashboard', subtitle: 'What your role can do' }));
    expect(plain).toContain('<h1 class="page-title">Admin Dashboard</h1>');
    expect(plain).toContain('<p class="page-subtitle">What your role can do</p>');
    expect(plain).toMatch(/<a[^>]*href="\/"[^>]*>.*Back to Home<\/a>/);
    expect(plain).not.toContain('page-title-actions');
    const withActions = render(
      createElement(PageTitle, { title: 'Residents OPP', subtitle: 'Profiles', actions: 'Add Resident' }),
    );
    expect(withActions).toMatch(/<div class="page-title-actions"><a[^>]*>.*Back to Home<\/a>Add Resident<\/div>/);
  });

  it('gives the sidebar and the phone menu the same Need Help? contact, each in its own frame', () => {
    const sidebar = render(createElement(NeedHelp, { variant: 'sidebar' }));
    expect(sidebar).toMatch(/^<section class="card sidebar-card sidebar-help" aria-labelledby="sidebar-help">/);
    expect(sidebar).toContain('<h2 id="sidebar-help" class="sidebar-title">');
    const sheet = render(createElement(NeedHelp, { variant: 'sheet' }));
    expect(sheet).toMatch(/^<section class="sheet-help" aria-labelledby="sheet-help-title">/);
    for (const html of [sidebar, sheet]) {
      expect(html).toContain('Need Help?</h2><p class="muted">Questions about the portal? Contact support.</p>');
      expect(html).toContain('href="mailto:help@care.example" aria-label="help@care.example"');
    }
    expect(render(createElement(NeedHelp, { variant: 'sidebar' }), '')).not.toContain('mailto:');
  });
});
