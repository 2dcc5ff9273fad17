/** The support FAQ: the twelve topics of the spec, answered for this portal. */
export interface FaqEntry {
  question: string;
  answer: string;
}

export const FAQ: FaqEntry[] = [
  {
    question: 'How do I create a team?',
    answer:
      "Open Teams and choose Create Team. Give the team a name, then add members from the list of available users and, in the last step, choose each member's role. You become the team's Admin automatically.",
  },
  {
    question: 'What is the acceptable use policy?',
    answer:
      'Use your virtual machines lawfully and fairly: no spam, no attacks on other networks, no malware hosting, no mining on shared capacity, and nothing that breaks the law of the country your VM runs in. Machines that break the policy may be stopped without notice. Ask support for the full text that applies to your contract.',
  },
  {
    question: 'Can I switch my VM to another server or region?',
    answer:
      'A VM stays in the region and with the provider it was created on. To move, create a new VM in the target region, copy your data across, and delete the old one. If you need help moving many machines, contact support.',
  },
  {
    question: 'How do I manage users?',
    answer:
      'Open Users to invite people (Create User), edit their names and see their team memberships. Inviting, editing and deleting other users needs the necessary permissions: company administrators can do it for everyone, team Admins can invite people into their own teams.',
  },
  {
    question: 'How do I reset my password?',
    answer:
      'On the sign-in page choose Forgot Password and enter your email. If the account exists you receive a link that works once and for one hour; open it and choose a new password of 12 to 50 characters with a number, a special character, an uppercase and a lowercase letter.',
  },
  {
    question: 'How do companies, teams and users relate?',
    answer:
      'There is no hierarchy between them: each is managed independently. A user belongs to your company and can be a member of any number of teams, with one role in each team. VMs belong to a team (or to the user who created them outside a team).',
  },
  {
    question: 'How are VMs configured?',
    answer:
      "Configuration is automatic: choose a size and an image when you create the VM and it is provisioned with the operating system, network, an SSH key pair and a password. Download the private key or reveal the password on the VM's page.",
  },
  {
    question: 'Where do I manage my VMs?',
    answer:
      'Open Virtual Machines to see all the machines you can reach, with their live status. Choose Details on a VM to start, stop, reset, upgrade, rename or delete it, open its console, or copy its addresses and credentials.',
  },
  {
    question: 'Are VM templates supported?',
    answer:
      'Templates are not supported. Every VM starts from one of the images offered in its region. If you need a custom image, ask support: custom VMs are available on request.',
  },
  {
    question: 'Can I get a custom configuration?',
    answer:
      'The six sizes from Micro to Extra Large cover most needs. For more CPU, memory or disk than Extra Large, or a different balance between them, ask support and we will offer a custom configuration.',
  },
  {
    question: 'How do I get help?',
    answer:
      'Use Get In Touch below to write to our support team. Your message reaches us with your name, email and company, and we answer by email. Include the VM name and what you saw so we can help quickly.',
  },
  {
    question: 'What should I do when a VM crashes?',
    answer:
      "Open the VM's page and check its status. If it is Running but not answering, open the console to see what it printed, then use Reset. If it shows Error, the reason is shown on the page; try Start again, and contact support with the VM name if it stays in Error.",
  },
];
