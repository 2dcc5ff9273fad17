/**
 * Image descriptions (issue 23 items 1 and 2, docs/decisions/0018-image-descriptions.md): what an image of the
 * catalog is (OS family and version), the login cloud-init makes on it (the VM's SSH user) and the smallest disk it
 * fits on. Kept by image name, platform-wide (the operator's `images describe`) and per reseller (its catalog screen),
 * the reseller's own winning for its customers. The customer's `listImages/{id}` stays plain strings (SPEC);
 * `listImageDetails/{id}` answers the same images with their descriptions.
 */
import './zod-setup.ts';
import { z } from 'zod';
import { SINGLE_LINE_PATTERN } from './validation.ts';

export const OS_FAMILIES = ['debian', 'ubuntu', 'rocky', 'alma', 'fedora', 'centos', 'other'] as const;
export type OsFamily = (typeof OS_FAMILIES)[number];
/** How the portal names each family. */
export const OS_FAMILY_LABELS: Record<OsFamily, string> = {
  debian: 'Debian',
  ubuntu: 'Ubuntu',
  rocky: 'Rocky Linux',
  alma: 'AlmaLinux',
  fedora: 'Fedora',
  centos: 'CentOS',
  other: 'Other',
};

export const IMAGE_MIN_DISK = { min: 1, max: 65_536 } as const;
/** The login of a VM whose image nobody described (the built Debian image's, and every VM's before issue 23). */
export const DEFAULT_IMAGE_USER = 'root';

export const IMAGE_TEXT = {
  osFamily: `The OS family must be one of ${OS_FAMILIES.join(', ')}`,
  version:
    'The version must be 1 to 32 letters, digits, dots, dashes or underscores, starting with a letter or digit (e.g. 12 or 24.04)',
  defaultUser:
    'The default user must be a Linux login: a lowercase letter or _ then at most 31 lowercase letters, digits, _ or - (e.g. debian)',
  minDisk: `The minimum disk must be a whole number of GB from ${IMAGE_MIN_DISK.min} to ${IMAGE_MIN_DISK.max}`,
  imageName: 'Name the image as the catalog lists it (1 to 100 characters on one line)',
  described: 'Image described',
  descriptionRemoved: 'Your description removed: your customers see the platform\u2019s',
} as const;

/** A create or rebuild whose size has less disk than the image needs (400). */
export const imageDiskTooSmallText = (image: string, minDiskGb: number, diskGb: number) =>
  `${image} needs a disk of at least ${minDiskGb} GB; this configuration has ${diskGb} GB: choose a larger one`;

export const osFamilySchema = z.enum(OS_FAMILIES, { error: IMAGE_TEXT.osFamily });
export const imageVersionSchema = z
  .string({ error: IMAGE_TEXT.version })
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$/, IMAGE_TEXT.version);
export const defaultUserSchema = z
  .string({ error: IMAGE_TEXT.defaultUser })
  .regex(/^[a-z_][a-z0-9_-]{0,31}$/, IMAGE_TEXT.defaultUser);
export const minDiskGbSchema = z
  .number({ error: IMAGE_TEXT.minDisk })
  .int(IMAGE_TEXT.minDisk)
  .min(IMAGE_MIN_DISK.min, IMAGE_TEXT.minDisk)
  .max(IMAGE_MIN_DISK.max, IMAGE_TEXT.minDisk);
/** An image's name as the catalog lists it (the images table, the providers' `images` map keys). */
export const imageNameSchema = z
  .string({ error: IMAGE_TEXT.imageName })
  .min(1, IMAGE_TEXT.imageName)
  .max(100, IMAGE_TEXT.imageName)
  .regex(SINGLE_LINE_PATTERN, IMAGE_TEXT.imageName)
  .refine((v) => v.trim() === v, IMAGE_TEXT.imageName);

/** What an image is, as the operator or a reseller describes it. All four fields, every time. */
export const imageDescriptionSchema = z
  .object({
    osFamily: osFamilySchema,
    version: imageVersionSchema,
    defaultUser: defaultUserSchema,
    minDiskGb: minDiskGbSchema,
  })
  .strict();
export type ImageDescription = z.infer<typeof imageDescriptionSchema>;

/** An image of a region with the description its customers see (null: nobody described it; the login is root). */
export const imageDetailsSchema = z.object({ name: z.string(), description: imageDescriptionSchema.nullable() });
export type ImageDetails = z.infer<typeof imageDetailsSchema>;

/** "Debian 12 · user root · at least 2 GB disk": one line for the portal's forms. */
export function describeImageLine(d: ImageDescription | null): string {
  if (!d) return `Not described \u00b7 user ${DEFAULT_IMAGE_USER}`;
  return `${OS_FAMILY_LABELS[d.osFamily]} ${d.version} \u00b7 user ${d.defaultUser} \u00b7 at least ${d.minDiskGb} GB disk`;
}
