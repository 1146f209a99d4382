package demosite

// teams are the department and team pages under /teams/: unique pages.
var teams = []text{
	{"finance", "Finance department", `Finance prepares the monthly and annual accounts, manages cash and bank
relations and pays suppliers twice a week. The controllers support each business unit with budgets and
forecasts. The department sits on the fifth floor of building A; for payment queries write to the accounts
payable mailbox rather than to individuals.`},
	{"people-and-culture", "People and culture", `The people and culture team looks after everything that
concerns your employment, from contracts and benefits to performance reviews and wellbeing. Each department
has a named people partner who joins its management meetings. Drop-in hours are held on Tuesday and Thursday
mornings; confidential matters can always be discussed by appointment.`},
	{"legal", "Legal department", `Our lawyers review contracts with customers and suppliers, advise on
competition and employment law, and protect the company's trademarks and patents. Send draft contracts at
least five working days before they must be signed. The team cannot give private legal advice, but it can
refer you to the employee assistance programme.`},
	{"procurement", "Procurement", `Procurement negotiates framework agreements, runs tenders for larger
purchases and checks new suppliers for financial stability and ethical standards. Category managers
specialise in IT, facilities, transport and raw materials. Involve them early: a tender above the threshold
takes at least six weeks from specification to award.`},
	{"it-operations", "IT operations", `IT operations runs the servers, storage, backups and business
applications in both data centres. An engineer is on call outside office hours for critical systems. Planned
changes are announced on the notices pages, and the weekly change board meets on Wednesday to approve them.`},
	{"information-security", "Information security team", `The information security team sets the security
policies, monitors the network for attacks and investigates incidents. It also runs awareness campaigns.
Architects review new systems before they go live; book a review through the project template in good time
rather than days before launch.`},
	{"facilities", "Facilities management", `Facilities management keeps the buildings running: cleaning,
heating, lighting, furniture, repairs and the car parks. Report a broken lamp, a leaking tap or an
uncomfortable room temperature in the facilities request form; urgent hazards such as water on the floor can
be phoned through to the caretaker directly.`},
	{"marketing", "Marketing", `Marketing builds the Acme brand through campaigns, trade fairs, the public
website and social media channels. The team also owns the corporate design guidelines, logo files and
presentation templates, which everyone can download from the brand portal. Requests for brochures or event
materials need about four weeks of lead time.`},
	{"sales", "Sales", `Our account managers look after customers in three regions, supported by an inside
sales team that handles quotes and smaller orders. The sales team meets every Monday to review the pipeline.
If a customer contacts you directly with a commercial question, pass it on to the account manager named in
the customer database.`},
	{"customer-support", "Customer support", `Customer support answers calls, emails and portal cases from
customers on weekdays from seven to seven. First-line agents solve most questions immediately and escalate
technical faults to the product specialists. Colleagues who notice a recurring customer complaint are asked
to share it, because the team tracks trends every week.`},
	{"logistics-planning", "Logistics planning", `Logistics planning decides how goods travel from our
suppliers to the warehouses and on to customers. Planners book hauliers, optimise delivery routes and monitor
on-time performance. The team works in early and late shifts so that the control room is staffed from five
in the morning until ten at night.`},
	{"central-warehouse", "Central warehouse", `The central warehouse stores around forty thousand articles
and ships up to nine thousand parcels a day. Safety shoes and high-visibility vests are mandatory beyond the
yellow line, including for office visitors. Tours for new colleagues are organised by the shift leaders once
a month and are well worth the walk.`},
	{"hardware-engineering", "Hardware engineering", `Hardware engineering designs the electronics and
housings of our sensors and handheld scanners. The department runs a prototype workshop with 3D printers, a
small pick-and-place line and a climate chamber for endurance tests. Anyone with an idea for a gadget is
welcome to drop in on the open workshop afternoon.`},
	{"quality-assurance", "Quality assurance", `Quality assurance inspects incoming components, tests samples
from every production batch and manages customer complaints about defective products. The team maintains our
certification and prepares the yearly external audits of the management system. Nonconformities found
anywhere in the company should be logged in the quality database.`},
	{"research-laboratory", "Research laboratory", `The research laboratory explores technologies that may
reach products in three to five years, such as low-power radio, new battery chemistry and machine vision.
Researchers collaborate with two universities and supervise doctoral students. Lab access requires a safety
induction, and visitors must be accompanied.`},
	{"product-management", "Product management", `Product managers decide what our products should do and in
which order features are built. They collect requirements from sales, support and customers, write the
roadmap and set priorities with engineering. The roadmap review each quarter is open to everyone who wants to
listen in.`},
	{"internal-communications", "Internal communications", `Internal communications publishes the news on
this intranet, the monthly staff magazine and the podcast. The team also prepares town-hall meetings and
helps managers announce changes to their departments. Story ideas, photos from events and corrections to
articles are always welcome.`},
	{"data-and-analytics", "Data and analytics", `The data and analytics team runs the data warehouse and
builds dashboards for sales, finance and operations. Analysts help departments answer questions with data and
teach self-service reporting in short workshops. Access to sensitive tables is granted per dataset after
approval by the data owner.`},
	{"web-team", "Web team", `The web team develops the public website, the customer portal and this intranet.
It looks after hosting, accessibility and search engine visibility. Editors in each department can update
their own pages after a one-hour training; structural changes and new page types are requested from the team
through its backlog.`},
	{"learning-and-development", "Learning and development", `Learning and development organises onboarding
sessions, leadership programmes and the internal course catalogue. The team negotiates discounts with
external training providers and administers the learning portal. Managers who see a skills gap in their team
can ask for a tailored workshop.`},
	{"occupational-health", "Occupational health", `The occupational health service is staffed by a company
doctor and two nurses. They carry out medical checks required for certain jobs, support colleagues returning
after long illness and advise on workplace ergonomics. Consultations are confidential; your manager only
learns whether you are fit for the job, never a diagnosis.`},
	{"reception", "Reception", `Reception welcomes visitors, issues guest badges and wireless vouchers, accepts
parcels for staff and manages the key cabinet. It is staffed from seven in the morning until seven in the
evening. Personal parcels may be delivered to the office but must be collected within three days.`},
	{"compliance", "Compliance office", `The compliance office helps the company follow laws and its own rules
on anti-corruption, export control, sanctions and fair competition. It keeps the gift register, screens
business partners and runs the whistleblowing process. Ask for advice before you act if a situation feels
wrong; it is never too early.`},
	{"internal-audit", "Internal audit", `Internal audit independently examines processes and controls across
the company and reports to the audit committee of the board. Each year it follows a risk-based plan agreed
with management. Departments under review receive an announcement letter, a list of requested documents and,
at the end, a report with agreed actions.`},
	{"payroll-office", "Payroll office", `The payroll office calculates salaries, overtime, bonuses and
deductions and makes sure everyone is paid on time at the end of each month. It also issues annual tax
statements and salary certificates for banks or landlords. Changes to your bank account must be entered in
the people portal before the monthly cut-off.`},
	{"recruitment", "Recruitment", `The recruitment team advertises vacancies, screens applications and
schedules interviews together with hiring managers. It manages the applicant tracking system and our presence
at career fairs. Employees who recommend a candidate who is hired receive a referral bonus after the new
colleague's probation period.`},
	{"field-service", "Field service", `Field service technicians install and repair our equipment at customer
sites across the country. They are dispatched from four regional hubs and carry spare parts in their vans.
The dispatch desk plans visits the day before; urgent repairs for hospitals are promised within four hours.`},
	{"design-studio", "Industrial design studio", `The industrial design studio shapes the look and feel of our
devices, from the first sketches to colour and material choices. Designers run usability tests with real
users in warehouses and hospitals. The studio on the top floor has a model-making room where foam and clay
prototypes are built.`},
	{"software-development", "Software development", `Software development builds the firmware for our
devices, the mobile apps used by drivers and the back-end services of the customer portal. Teams work in
two-week sprints and present their results at an open demo every other Thursday. Code is reviewed by at
least one other developer before it is merged.`},
	{"network-and-telephony", "Network and telephony", `The network and telephony group operates the wired and
wireless networks, firewalls, internet links and the phone system at all sites. It also plans the cabling for
office moves. When a department relocates, involve the group at least a month ahead so that ports and access
points are ready on the day.`},
	{"it-service-desk", "IT service desk", `The IT service desk is the single point of contact for all
computer problems and requests. Agents answer the phone and the self-service portal from seven in the morning
to eight in the evening, and an on-call colleague handles emergencies overnight. Every request gets a ticket
number by mail so that you can follow its progress.`},
	{"executive-office", "Executive office", `The executive office supports the chief executive and the
management board. It coordinates board meetings, prepares strategy documents and handles correspondence with
shareholders and public authorities. Appointment requests for members of the board are made through the
executive assistants, not directly.`},
	{"sustainability-office", "Sustainability office", `The sustainability office measures the company's
environmental footprint, sets reduction targets and coordinates projects such as solar power, electric
vehicles and less packaging. It publishes the yearly sustainability report and answers customer
questionnaires about our environmental performance. Green champions in each department pass on suggestions.`},
	{"social-club", "Social club", `The social club is run by volunteers and organises the summer party, the
winter market, sports groups and trips to concerts and museums. Membership costs a small monthly fee deducted
from salary and gives discounts on all events. New committee members are elected every spring at the general
meeting.`},
	{"works-council", "Works council", `The works council represents the interests of employees towards
management. It is consulted on working hours, restructuring, new monitoring systems and many other changes
that affect staff. Council members can be reached by phone or in person during their weekly office hours, and
conversations remain confidential.`},
	{"records-and-archive", "Records and archive", `The records and archive service stores paper files that
must be kept by law, such as contracts, personnel files and accounting records. Boxes are collected from
departments on request, indexed and stored in the climate-controlled basement. Retrieving a file usually
takes one working day.`},
}
