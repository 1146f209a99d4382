package demosite

// hr are the pages of the human resources section under /hr/: unique
// pages, meant for staff with HR access (the demo serves them to anyone).
var hr = []text{
	{"salary-bands", "Salary bands and grading", `Every position is assigned to one of twelve grades based on
its responsibilities, required expertise and scope of decisions. Each grade has a salary band with a minimum,
a midpoint and a maximum that are reviewed every year against market data. Moving to a higher grade requires
a documented change in role, not only long service.`},
	{"performance-reviews", "Annual performance reviews", `Performance reviews take place between January and
March. Employees prepare a self-assessment in the people portal, managers add their rating and both discuss
goals for the coming year. Ratings are calibrated across each department to ensure fairness before they
influence bonuses and salary increases.`},
	{"bonus-scheme", "Bonus scheme rules", `The annual bonus depends on company results and on individual
performance. The company factor is set by the board after the accounts are closed; the individual factor
follows the review rating. Bonuses are paid with the April salary to employees still employed on the payment
date, pro rata for part-time and new staff.`},
	{"grievance-procedure", "Grievance procedure", `If you have a complaint about your treatment at work that
you could not resolve informally, you can raise a formal grievance in writing with your people partner. A
meeting is held within ten working days, and you may be accompanied by a colleague or a works council member.
You receive a written decision and may appeal once.`},
	{"disciplinary-procedure", "Disciplinary procedure", `Misconduct is first addressed in an informal
conversation. Repeated or serious misconduct leads to an investigation, a hearing and possibly a written
warning, which stays on file for twelve months. Gross misconduct such as theft or violence may result in
dismissal. Employees have the right to be heard and to bring a companion to every hearing.`},
	{"probation", "Probation period", `New employees serve a probation period of six months, during which the
notice period is two weeks on both sides. Managers hold review conversations after two and after five months
and record the outcome. If there are doubts about suitability, the people partner must be involved before the
end of the fifth month.`},
	{"position-approval", "Approving a new position", `Before a vacancy is advertised, the hiring manager
submits a position request with the job description, grade and budget line. The department head and finance
approve it in the workflow, and for newly created positions the management board as well. Recruitment starts
only once all approvals are recorded.`},
	{"relocation", "Relocation support", `Employees who move to another site at the company's request receive
help with removal costs, temporary accommodation for up to three months and a visit trip with their partner.
A relocation agency helps with house hunting, schools and registration with local authorities. Claims are
submitted with receipts within six months of the move.`},
	{"pension-scheme", "Company pension scheme", `The company pays a contribution of five percent of salary into
the pension plan for every employee who has completed probation. Employees may add voluntary contributions
from their gross salary, which the company matches up to an additional two percent. Statements showing the
accumulated balance are sent each spring.`},
	{"employee-assistance", "Employee assistance programme", `The employee assistance programme offers free and
confidential counselling by phone or in person for personal, family, financial and legal worries. It is
provided by an external service, available day and night, and also open to members of your household. The
company receives only anonymous statistics about usage.`},
	{"overtime", "Overtime and time off in lieu", `Overtime must be agreed with your manager in advance, except
in emergencies. Employees up to grade seven are paid overtime at a premium or may take time off in lieu
within three months; higher grades are compensated through their salary. Working hours are recorded in the
time tracking system daily.`},
	{"leaving", "Leaving the company", `When an employee resigns, the manager informs the people team on the
same day. An exit checklist covers the return of equipment and badges, the handover of work and the transfer
of mailbox content. A voluntary exit interview helps us learn why people leave; its answers are only reported
in aggregated form.`},
	{"references", "Employment references", `Requests from other employers for a reference about a current or
former employee are answered only by the people team, never by line managers personally. We confirm dates of
employment and job title; a fuller reference is given only with the employee's written consent. Leavers
receive a written certificate of employment automatically.`},
	{"flexible-hours", "Flexible working hours", `Core hours are from ten in the morning to three in the
afternoon; outside them you decide when to start and finish, within the legal limits on daily working time.
Part-time arrangements and compressed weeks can be requested once a year and are granted unless serious
operational reasons speak against them.`},
	{"personnel-files", "Personnel files", `Personnel files contain contracts, changes to terms,
qualifications, appraisals and formal warnings. They are stored electronically with access limited to the
people team and, for their own staff, the responsible managers. Employees may inspect their own file at any
time and add a written statement to any document.`},
	{"promotion-rounds", "Promotion rounds", `Promotions are decided twice a year, in spring and autumn.
Managers nominate candidates with a short case describing how the person already works at the next level. A
committee of department heads reviews all nominations together to keep standards consistent, and
unsuccessful candidates get specific feedback.`},
	{"sabbaticals", "Sabbaticals and unpaid leave", `After five years of service you may apply for a sabbatical
of up to six months. Part of your salary can be saved in advance to continue payments during the break.
Unpaid leave of up to four weeks for personal reasons can be granted at any time. Your position or an
equivalent one is guaranteed on return.`},
	{"health-insurance", "Supplementary health insurance", `All permanent employees are covered by a
supplementary health insurance that pays for dental treatment, glasses and private hospital rooms beyond the
statutory cover. Family members can be added at a reduced group rate. Claims are filed directly with the
insurer through its app; the people team can help in case of disputes.`},
}
