// Synthetic but realistic contracts for environments/document-contract-review: each a
// set of clauses with values; the revised version changes some of them (the planted
// discrepancies). Deterministic: the same seed gives the same folder byte for byte.

/** A clause: a numbered section whose text states one reviewed value. */
export interface Clause {
  section: string;
  heading: string;
  /** Review vocabulary: what the clause fixes (fee, payment_terms, term, …). */
  field: string;
  value: string;
  /** The clause text with {v} where the value goes. */
  text: string;
  /** A money amount the report must list. */
  money?: boolean;
}

export interface ContractSpec {
  slug: string;
  title: string;
  parties: [string, string];
  roles: [string, string];
  effective: string;
  clauses: Clause[];
  /** Section → revised value in version 2. */
  changes: Record<string, string>;
  /** Clauses planted in version 2 only (original value "none" in the report). */
  added?: Clause[];
  /** Boilerplate sections (no reviewed value) that pad the contract to a few pages. */
  boilerplate: string[];
}

const BOILERPLATE = [
  "Confidentiality. Each party shall hold the other party's Confidential Information in confidence, use it only to perform this Agreement, and disclose it only to its employees and advisers who need to know it and are bound by obligations no less protective than these. These obligations survive termination for three years, except that trade secrets remain protected for as long as they remain trade secrets under applicable law.",
  "Representations and Warranties. Each party represents that it is duly organised and in good standing, that it has full power and authority to enter into this Agreement, and that the execution and performance of this Agreement do not conflict with any other agreement by which it is bound. EXCEPT AS EXPRESSLY SET OUT IN THIS AGREEMENT, NEITHER PARTY MAKES ANY OTHER WARRANTY, EXPRESS OR IMPLIED, INCLUDING ANY WARRANTY OF MERCHANTABILITY OR FITNESS FOR A PARTICULAR PURPOSE.",
  "Indemnification. Each party shall defend, indemnify and hold harmless the other party and its officers, directors and employees from and against any third-party claim arising out of its gross negligence, wilful misconduct or breach of applicable law, provided that the indemnified party gives prompt written notice of the claim, reasonable cooperation, and sole control of its defence and settlement.",
  "Force Majeure. Neither party is liable for any failure or delay in performance caused by events beyond its reasonable control, including acts of God, flood, fire, epidemic, war, terrorism, strikes (other than of its own workforce), or failures of public utilities, provided that it notifies the other party promptly and uses commercially reasonable efforts to resume performance.",
  "Assignment. Neither party may assign or transfer this Agreement, in whole or in part, without the prior written consent of the other party, which shall not be unreasonably withheld, except to a successor in a merger, acquisition or sale of all or substantially all of its assets relating to this Agreement.",
  "Notices. All notices under this Agreement shall be in writing and delivered by hand, by internationally recognised courier, or by email with confirmation of receipt, to the addresses set out above or such other address as a party designates by notice. Notices are effective on receipt.",
  "Entire Agreement. This Agreement, including its schedules, constitutes the entire agreement between the parties concerning its subject matter and supersedes all prior agreements, proposals and representations, written or oral. No amendment is effective unless in writing and signed by authorised representatives of both parties.",
  "Severability; Waiver. If any provision of this Agreement is held invalid or unenforceable, the remaining provisions remain in full force. No failure or delay in exercising any right operates as a waiver of it, and no single or partial exercise of a right precludes any further exercise of it.",
];

export const CONTRACTS: ContractSpec[] = [
  {
    slug: "msa-northwind",
    title: "MASTER SERVICES AGREEMENT",
    parties: ["Northwind Analytics, Inc.", "Harborview Logistics LLC"],
    roles: ["Provider", "Client"],
    effective: "March 1, 2024",
    clauses: [
      {
        section: "3.1",
        heading: "Fees",
        field: "fee",
        value: "$48,500",
        money: true,
        text: "Client shall pay Provider a monthly service fee of {v} for the Services described in Schedule A.",
      },
      {
        section: "3.2",
        heading: "Payment Terms",
        field: "payment_terms",
        value: "30 days",
        text: "Provider shall invoice monthly in arrears. Invoices are payable within {v} of the invoice date.",
      },
      {
        section: "3.3",
        heading: "Late Payment",
        field: "late_interest",
        value: "1.5%",
        text: "Overdue amounts bear interest at {v} per month or the highest rate permitted by law, whichever is lower.",
      },
      {
        section: "5.1",
        heading: "Term",
        field: "term",
        value: "24 months",
        text: "This Agreement commences on the Effective Date and continues for an initial term of {v}.",
      },
      {
        section: "5.3",
        heading: "Termination for Convenience",
        field: "termination_notice",
        value: "90 days",
        text: "Either party may terminate this Agreement for convenience on {v} prior written notice.",
      },
      {
        section: "8.2",
        heading: "Limitation of Liability",
        field: "liability_cap",
        value: "$1,000,000",
        money: true,
        text: "Each party's aggregate liability under this Agreement shall not exceed {v}.",
      },
      {
        section: "11.4",
        heading: "Governing Law",
        field: "governing_law",
        value: "the State of New York",
        text: "This Agreement is governed by the laws of {v}, without regard to its conflict of laws rules.",
      },
    ],
    changes: { "3.1": "$52,000", "3.2": "45 days", "8.2": "$500,000", "11.4": "the State of Delaware" },
    added: [
      {
        section: "5.2",
        heading: "Automatic Renewal",
        field: "auto_renewal",
        value: "successive 12-month terms",
        text: "Unless either party gives notice of non-renewal, this Agreement renews automatically for {v}.",
      },
    ],
    boilerplate: [0, 1, 2, 3, 4, 5, 6, 7].map((i) => BOILERPLATE[i]!),
  },
  {
    slug: "lease-riverside",
    title: "COMMERCIAL LEASE AGREEMENT",
    parties: ["Riverside Property Holdings LP", "Copperleaf Bakery Co."],
    roles: ["Landlord", "Tenant"],
    effective: "July 15, 2023",
    clauses: [
      {
        section: "2.1",
        heading: "Base Rent",
        field: "rent",
        value: "$12,750",
        money: true,
        text: "Tenant shall pay base rent of {v} per month, in advance, on the first day of each calendar month.",
      },
      {
        section: "2.3",
        heading: "Security Deposit",
        field: "deposit",
        value: "$25,500",
        money: true,
        text: "On signing, Tenant shall deposit {v} with Landlord as security for the performance of its obligations.",
      },
      {
        section: "2.4",
        heading: "Rent Escalation",
        field: "escalation",
        value: "3%",
        text: "Base rent increases by {v} on each anniversary of the Commencement Date.",
      },
      {
        section: "3.1",
        heading: "Lease Term",
        field: "term",
        value: "60 months",
        text: "The lease term is {v} from the Commencement Date.",
      },
      {
        section: "3.2",
        heading: "Renewal Option",
        field: "renewal",
        value: "one renewal term of 36 months",
        text: "Tenant has {v}, exercisable by written notice no later than 180 days before expiry.",
      },
      {
        section: "7.1",
        heading: "Permitted Use",
        field: "permitted_use",
        value: "a retail bakery and café",
        text: "Tenant shall use the Premises only as {v} and for no other purpose.",
      },
      {
        section: "12.2",
        heading: "Late Charge",
        field: "late_fee",
        value: "$350",
        money: true,
        text: "Any rent not paid within five days of its due date incurs a late charge of {v}.",
      },
    ],
    changes: { "2.1": "$13,250", "2.4": "4%", "3.2": "two renewal terms of 36 months", "12.2": "$500" },
    boilerplate: [2, 3, 4, 5, 6, 7].map((i) => BOILERPLATE[i]!),
  },
  {
    slug: "license-bluepeak",
    title: "SOFTWARE LICENSE AGREEMENT",
    parties: ["Bluepeak Software Ltd.", "Meridian Health Partners, Inc."],
    roles: ["Licensor", "Licensee"],
    effective: "January 8, 2025",
    clauses: [
      {
        section: "2.1",
        heading: "License Grant",
        field: "license_scope",
        value: "up to 250 named users",
        text: "Licensor grants Licensee a non-exclusive, non-transferable licence to use the Software for {v}.",
      },
      {
        section: "4.1",
        heading: "License Fee",
        field: "fee",
        value: "$180,000",
        money: true,
        text: "Licensee shall pay an annual licence fee of {v}, invoiced on the Effective Date and each anniversary.",
      },
      {
        section: "4.2",
        heading: "Payment Terms",
        field: "payment_terms",
        value: "30 days",
        text: "Invoices are due within {v} of receipt.",
      },
      {
        section: "6.1",
        heading: "Support",
        field: "support_response",
        value: "4 hours",
        text: "Licensor shall respond to Severity 1 incidents within {v}.",
      },
      {
        section: "6.2",
        heading: "Service Credits",
        field: "service_credit",
        value: "5%",
        text: "For each month availability falls below 99.9%, Licensee receives a credit of {v} of the monthly fee.",
      },
      { section: "9.1", heading: "Term", field: "term", value: "36 months", text: "This Agreement has an initial term of {v}." },
      {
        section: "10.3",
        heading: "Limitation of Liability",
        field: "liability_cap",
        value: "$360,000",
        money: true,
        text: "Licensor's total liability shall not exceed {v}.",
      },
    ],
    changes: { "2.1": "up to 200 named users", "4.1": "$195,000", "6.1": "8 hours", "9.1": "48 months", "10.3": "$180,000" },
    added: [
      {
        section: "4.4",
        heading: "Audit Fee",
        field: "audit_fee",
        value: "$25,000",
        money: true,
        text: "If an audit shows under-licensing of more than 5%, Licensee shall pay Licensor's audit costs of {v} in addition to the unpaid fees.",
      },
    ],
    boilerplate: [0, 1, 4, 5, 6].map((i) => BOILERPLATE[i]!),
  },
  {
    slug: "supply-granite",
    title: "SUPPLY AGREEMENT",
    parties: ["Granite Ridge Materials Corp.", "Lakeshore Construction Group LLC"],
    roles: ["Supplier", "Buyer"],
    effective: "September 30, 2024",
    clauses: [
      {
        section: "2.2",
        heading: "Minimum Purchase",
        field: "minimum_purchase",
        value: "1,200 tons",
        text: "Buyer shall purchase at least {v} of aggregate per calendar quarter.",
      },
      {
        section: "3.1",
        heading: "Price",
        field: "price",
        value: "$42.75",
        money: true,
        text: "The price is {v} per ton, delivered to Buyer's site.",
      },
      {
        section: "3.4",
        heading: "Volume Rebate",
        field: "rebate",
        value: "2.5%",
        text: "Supplier grants a rebate of {v} on quarterly purchases above 2,000 tons.",
      },
      {
        section: "4.1",
        heading: "Delivery",
        field: "delivery_lead_time",
        value: "5 business days",
        text: "Supplier shall deliver within {v} of Buyer's purchase order.",
      },
      {
        section: "4.3",
        heading: "Liquidated Damages",
        field: "liquidated_damages",
        value: "$1,500",
        money: true,
        text: "For each day of late delivery Supplier shall pay liquidated damages of {v}, up to ten days.",
      },
      {
        section: "8.1",
        heading: "Term",
        field: "term",
        value: "12 months",
        text: "This Agreement runs for {v} from the Effective Date and renews automatically unless terminated.",
      },
    ],
    changes: { "3.1": "$44.10", "4.1": "7 business days", "4.3": "$1,000" },
    boilerplate: [0, 1, 2, 3, 4, 5, 6, 7].map((i) => BOILERPLATE[i]!),
  },
  {
    slug: "employment-ortega",
    title: "EXECUTIVE EMPLOYMENT AGREEMENT",
    parties: ["Solstice Renewables, Inc.", "Maria L. Ortega"],
    roles: ["Company", "Executive"],
    effective: "April 1, 2024",
    clauses: [
      {
        section: "1.1",
        heading: "Position",
        field: "position",
        value: "Chief Financial Officer",
        text: "The Company employs the Executive as its {v}, reporting to the Chief Executive Officer.",
      },
      {
        section: "3.1",
        heading: "Base Salary",
        field: "salary",
        value: "$310,000",
        money: true,
        text: "The Company shall pay the Executive an annual base salary of {v}, payable in accordance with its payroll practices.",
      },
      {
        section: "3.2",
        heading: "Annual Bonus",
        field: "bonus_target",
        value: "40%",
        text: "The Executive is eligible for an annual bonus with a target of {v} of base salary.",
      },
      {
        section: "3.3",
        heading: "Signing Bonus",
        field: "signing_bonus",
        value: "$50,000",
        money: true,
        text: "The Company shall pay a one-time signing bonus of {v} within thirty days of the Effective Date.",
      },
      {
        section: "6.2",
        heading: "Severance",
        field: "severance",
        value: "12 months of base salary",
        text: "On termination without Cause, the Executive receives {v}.",
      },
      {
        section: "7.1",
        heading: "Non-Competition",
        field: "non_compete",
        value: "12 months",
        text: "For {v} after employment ends, the Executive shall not work for a competitor in North America.",
      },
    ],
    changes: { "3.2": "50%", "3.3": "$75,000", "6.2": "18 months of base salary", "7.1": "18 months" },
    boilerplate: [0, 2, 5, 6, 7].map((i) => BOILERPLATE[i]!),
  },
  {
    slug: "loan-cedar",
    title: "TERM LOAN AGREEMENT",
    parties: ["Cedar Valley Bank, N.A.", "Ironclad Manufacturing Co."],
    roles: ["Lender", "Borrower"],
    effective: "November 12, 2023",
    clauses: [
      {
        section: "2.1",
        heading: "Commitment",
        field: "principal",
        value: "$4,250,000",
        money: true,
        text: "Lender agrees to make a term loan to Borrower in the principal amount of {v}.",
      },
      {
        section: "2.3",
        heading: "Interest Rate",
        field: "interest_rate",
        value: "6.75%",
        text: "The loan bears interest at a fixed rate of {v} per annum, computed on a 360-day year.",
      },
      {
        section: "2.5",
        heading: "Maturity",
        field: "maturity_date",
        value: "November 12, 2030",
        text: "All outstanding principal and interest are due on {v}.",
      },
      {
        section: "2.6",
        heading: "Origination Fee",
        field: "origination_fee",
        value: "$42,500",
        money: true,
        text: "Borrower shall pay Lender an origination fee of {v} at closing.",
      },
      {
        section: "6.1",
        heading: "Financial Covenant",
        field: "dscr_covenant",
        value: "1.25 to 1.00",
        text: "Borrower shall maintain a debt service coverage ratio of at least {v}, tested quarterly.",
      },
      {
        section: "8.1",
        heading: "Default Interest",
        field: "default_interest",
        value: "2%",
        text: "During an Event of Default the interest rate increases by {v} per annum.",
      },
    ],
    changes: { "2.3": "7.25%", "2.5": "November 12, 2029", "6.1": "1.35 to 1.00" },
    added: [
      {
        section: "2.7",
        heading: "Prepayment Premium",
        field: "prepayment_premium",
        value: "2%",
        text: "Any prepayment in the first three years carries a premium of {v} of the amount prepaid.",
      },
    ],
    boilerplate: [1, 3, 4, 5, 6, 7].map((i) => BOILERPLATE[i]!),
  },
  {
    slug: "consulting-aster",
    title: "CONSULTING AGREEMENT",
    parties: ["Aster & Finch Advisory LLP", "Pinecrest Retail Holdings, Inc."],
    roles: ["Consultant", "Company"],
    effective: "February 3, 2025",
    clauses: [
      {
        section: "2.1",
        heading: "Hourly Rate",
        field: "rate",
        value: "$275",
        money: true,
        text: "The Company shall pay the Consultant {v} per hour for time spent on the Services.",
      },
      {
        section: "2.2",
        heading: "Fee Cap",
        field: "fee_cap",
        value: "$120,000",
        money: true,
        text: "Total fees under this Agreement shall not exceed {v} without the Company's written approval.",
      },
      {
        section: "2.4",
        heading: "Expenses",
        field: "expense_limit",
        value: "$5,000",
        money: true,
        text: "The Company reimburses reasonable pre-approved travel expenses up to {v} per quarter.",
      },
      { section: "4.1", heading: "Term", field: "term", value: "6 months", text: "The engagement lasts {v} from the Effective Date." },
      {
        section: "4.2",
        heading: "Termination",
        field: "termination_notice",
        value: "15 days",
        text: "Either party may end the engagement on {v} written notice.",
      },
      {
        section: "9.1",
        heading: "Governing Law",
        field: "governing_law",
        value: "the State of California",
        text: "This Agreement is governed by the laws of {v}.",
      },
    ],
    changes: { "2.1": "$295", "2.2": "$150,000", "4.2": "30 days", "9.1": "the State of Washington" },
    boilerplate: [0, 1, 2, 4, 5, 6, 7].map((i) => BOILERPLATE[i]!),
  },
];
