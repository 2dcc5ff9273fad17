/**
 * The create form's card choices (issue 25 item 3): the image and the configuration are radio groups named Image and
 * Configuration, each card a radio named by its title (the image's name, the size's name).
 */
import type { Page } from 'playwright-core';

export const cardGroup = (page: Page, group: 'Image' | 'Configuration') =>
  page.getByRole('radiogroup', { name: group, exact: true });

export const card = (page: Page, group: 'Image' | 'Configuration', name: string) =>
  cardGroup(page, group).getByRole('radio', { name, exact: true });

/** Chooses a card as a person does: a click on it. */
export async function chooseCard(page: Page, group: 'Image' | 'Configuration', name: string): Promise<void> {
  await cardGroup(page, group)
    .locator('label', { has: page.getByRole('radio', { name, exact: true }) })
    .click();
}
